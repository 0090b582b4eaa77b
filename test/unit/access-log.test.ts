import { describe, expect, it } from 'vitest';
import { AccessLog, loggedPath } from '../../src/http/access-log.js';
import type { HttpRequest } from '../../src/http/types.js';
import { createLogger } from '../../src/observability/logger.js';

/** An access log writing into `writes`. */
function capture() {
  const writes: string[] = [];
  const lines = () =>
    writes
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const access = new AccessLog({ write: (s: string) => writes.push(s) });
  access.setLevel('debug');
  return { writes, lines, access };
}

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

const head = (method: string, path: string): Omit<HttpRequest, 'body'> => ({
  method,
  path,
  query: 'token=phc_secret&x=1',
  ip: '127.0.0.1',
  header: (name) => (name === 'authorization' ? 'Bearer phx_secret' : ''),
  receivedAt: 0,
});

describe('AccessLog', () => {
  it('is on at debug and trace, off above', () => {
    const access = new AccessLog({ write: () => {} });
    expect(access.enabled).toBe(false);
    for (const [level, on] of [
      ['debug', true],
      ['warn', false],
      ['trace', true],
      ['info', false],
      ['silent', false],
    ] as const) {
      access.setLevel(level);
      expect({ level, on: access.enabled }).toEqual({ level, on });
    }
  });

  it('writes one debug line per request: method, path without its query, status, duration, project, body sizes', async () => {
    const { lines, writes, access } = capture();
    access.write(head('POST', '/flags/'), 48, { status: 200, body: 'é'.repeat(10), projectId: 7 }, 1.23456789);
    access.write(head('GET', '/api/projects/1/feature_flags/'), 0, { status: 401, body: new Uint8Array(5) }, 0.5);
    access.write(head('HEAD', '/_health'), 0, { status: 200, body: '{"status":"ok"}' }, 0.1);
    access.write(head('POST', '/batch/'), undefined, { status: 413 }, 2);
    access.write(head('GET', '/we"ird\\path'), 0, { status: 404 }, 0);
    // Written together at the end of the turn.
    expect(writes).toEqual([]);
    await endOfTurn();
    expect(writes).toHaveLength(1);
    const fields = lines().map(({ time, pid, ...rest }) => {
      expect(time).toBe(new Date(Date.parse(String(time))).toISOString());
      expect(pid).toBe(process.pid);
      return rest;
    });
    const line = { level: 'debug', msg: 'request' };
    expect(fields).toEqual([
      {
        ...line,
        method: 'POST',
        path: '/flags/',
        status: 200,
        duration_ms: 1.235,
        project_id: 7,
        request_bytes: 48,
        response_bytes: 20,
      },
      {
        ...line,
        method: 'GET',
        path: '/api/projects/1/feature_flags/',
        status: 401,
        duration_ms: 0.5,
        request_bytes: 0,
        response_bytes: 5,
      },
      { ...line, method: 'HEAD', path: '/_health', status: 200, duration_ms: 0.1, request_bytes: 0, response_bytes: 0 },
      { ...line, method: 'POST', path: '/batch/', status: 413, duration_ms: 2, response_bytes: 0 },
      { ...line, method: 'GET', path: '/we"ird\\path', status: 404, duration_ms: 0, request_bytes: 0, response_bytes: 0 },
    ]);
    const text = writes.join('');
    for (const secret of ['phc_secret', 'phx_secret', 'token=', 'é']) expect(text).not.toContain(secret);
  });

  it("has the daemon's log format: pino's fields in pino's order", async () => {
    const { writes, access } = capture();
    const pinoLines: string[] = [];
    const fields = { method: 'POST', path: '/e/', status: 200, duration_ms: 3.5, project_id: 1, request_bytes: 10, response_bytes: 12 };
    createLogger('debug', { write: (s: string) => pinoLines.push(s) }).debug(fields, 'request');
    access.write(head('POST', '/e/'), 10, { status: 200, body: '{"status":1}', projectId: 1 }, 3.5);
    await endOfTurn();
    const withoutTime = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""');
    expect(writes.map(withoutTime)).toEqual(pinoLines.map(withoutTime));
  });
});

describe('loggedPath', () => {
  it('hides the project key of posthog-js remote config paths', () => {
    expect(loggedPath('/array/phc_abc123/config.js')).toBe('/array/[key]/config.js');
    expect(loggedPath('/array/phc_abc123/config')).toBe('/array/[key]/config');
    expect(loggedPath('/array/phc_abc123')).toBe('/array/[key]');
    expect(loggedPath('/array/')).toBe('/array/[key]');
    expect(loggedPath('/arrays/phc_abc123')).toBe('/arrays/phc_abc123');
    expect(loggedPath('/e/')).toBe('/e/');
  });

  it('cuts a path past 512 characters', () => {
    expect(loggedPath(`/${'a'.repeat(600)}`)).toBe(`/${'a'.repeat(511)}…`);
    expect(loggedPath(`/${'a'.repeat(511)}`)).toHaveLength(512);
  });
});
