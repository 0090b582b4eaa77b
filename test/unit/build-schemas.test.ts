import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('scripts/build-schemas.mjs', () => {
  it('reports the generated validators as current (--check)', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const out = execFileSync(process.execPath, ['scripts/build-schemas.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(out).toBe('');
  });
});
