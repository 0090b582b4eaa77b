import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TurnBatchedLines } from '../../src/observability/turn-batched-lines.js';

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnBatchedLines', () => {
  it('writes the lines of a turn together at its end', async () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (s) => writes.push(s) });
    lines.write('a\n');
    lines.write('b\n');
    expect(writes).toEqual([]);
    await endOfTurn();
    expect(writes).toEqual(['a\nb\n']);
    lines.write('c\n');
    await endOfTurn();
    await endOfTurn();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('never writes more than 4 KiB at once, nor part of a line', async () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (s) => writes.push(s) });
    const line = `${'x'.repeat(99)}\n`; // 100 bytes
    const wide = `${'é'.repeat(99)}\n`; // 199 bytes, 100 characters
    for (let i = 0; i < 100; i++) lines.write(i % 2 === 0 ? line : wide);
    await endOfTurn();
    expect(writes.join('')).toBe(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? line : wide)).join(''));
    expect(writes.length).toBeGreaterThan(1);
    for (const w of writes) {
      expect(Buffer.byteLength(w)).toBeLessThanOrEqual(4096);
      expect(w.endsWith('\n')).toBe(true);
    }
  });

  it('flush() writes what waits at once', () => {
    const writes: string[] = [];
    const lines = new TurnBatchedLines({ write: (s) => writes.push(s) });
    lines.flush();
    lines.write('a\n');
    lines.flush();
    expect(writes).toEqual(['a\n']);
  });

  it('writes what waits when the process exits in the same turn', () => {
    // The built module (npm test builds first), in a process of its own.
    const built = new URL('../../dist/src/observability/turn-batched-lines.js', import.meta.url).href;
    const code = `import(${JSON.stringify(built)}).then(({ TurnBatchedLines }) => {
      const lines = new TurnBatchedLines({ write: (s) => require('node:fs').writeSync(1, s) });
      lines.write('last words\\n');
      process.exit(0);
    });`;
    const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
    expect([r.status, r.stdout]).toEqual([0, 'last words\n']);
  });
});
