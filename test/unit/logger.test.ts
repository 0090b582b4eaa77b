import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLogger, followLogLevel, setLogLevel } from '../../src/observability/logger.js';

function capture(): { lines: Record<string, unknown>[]; stream: { write(s: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } };
}

describe('createLogger', () => {
  it('writes one JSON object per line with a level label and ISO time', () => {
    const { lines, stream } = capture();
    createLogger('info', stream).info({ port: 8000 }, 'listening');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'listening', port: 8000, pid: process.pid });
    expect(String(lines[0]?.['time'])).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('changes level at runtime', () => {
    const { lines, stream } = capture();
    const log = createLogger('warn', stream);
    log.info('hidden');
    setLogLevel(log, 'debug');
    log.debug('shown');
    setLogLevel(log, 'silent');
    log.fatal('hidden too');
    expect(lines.map((l) => l['msg'])).toEqual(['shown']);
  });

  it('tells followers the level now and after each change', () => {
    const log = createLogger('info', { write: () => {} });
    const seen: string[] = [];
    followLogLevel(log, (level) => seen.push(level));
    setLogLevel(log, 'debug');
    setLogLevel(log, 'warn');
    expect(seen).toEqual(['info', 'debug', 'warn']);
  });

  it('defaults to a synchronous stdout', () => {
    expect(createLogger('info').level).toBe('info');
  });
});

describe('logUncaughtErrors', () => {
  // The built module (npm test builds first), in a process of its own that the error ends.
  const built = new URL('../../dist/src/observability/logger.js', import.meta.url).href;
  const run = (fail: string) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(built)}); m.logUncaughtErrors(m.createLogger('info')); ${fail}`,
      ],
      { encoding: 'utf8' },
    );

  it('logs an unhandled rejection as one fatal JSON line, then the process exits 1 as before', () => {
    const r = run("setTimeout(() => Promise.reject(new Error('boom')), 0);");
    expect(r.status).toBe(1);
    const line = JSON.parse(r.stdout.trim().split('\n')[0] ?? '') as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'fatal', origin: 'unhandledRejection', msg: 'unhandled promise rejection: exiting' });
    expect((line['err'] as { message: string }).message).toBe('boom');
    expect(r.stderr).toContain('boom');
  });

  it('logs an uncaught exception the same way', () => {
    const r = run("setTimeout(() => { throw new Error('bang'); }, 0);");
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ level: 'fatal', origin: 'uncaughtException', msg: 'uncaught error: exiting' });
  });
});
