import { describe, expect, it } from 'vitest';
import { createLogger, setLogLevel } from '../../src/observability/logger.js';

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

  it('defaults to a synchronous stdout', () => {
    expect(createLogger('info').level).toBe('info');
  });
});
