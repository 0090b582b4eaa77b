/**
 * The access log: a `debug` line per answered request, from the front-end threads for what they
 * answer themselves (`/flags`, flag definitions) and from the main thread for the rest, with no
 * key, token, header or body in it; none at `info`; and a SIGHUP's level reaching the threads.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, makeTempDir, startDaemon, useDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { postJson, send } from '../helpers/http.js';

afterAll(cleanupDaemons);

type Line = Record<string, unknown>;

const requestLines = (d: DaemonHandle): Line[] => d.records().filter((r) => r.msg === 'request');

/** Waits until a request line for `p` (method and path) is logged, and returns it. */
async function lineFor(d: DaemonHandle, method: string, p: string): Promise<Line> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const line = requestLines(d).find((l) => l.method === method && l.path === p);
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no access line for ${method} ${p}; lines:\n${JSON.stringify(requestLines(d), null, 1)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(BACKENDS)('access log at debug (%s backend)', (backend) => {
  const d = useDaemon({ backend, env: { HEDGEROW_LOG_LEVEL: 'debug', HEDGEROW_MAX_BODY_BYTES: '1024' } });

  it('logs each answered request once, with what it was and nothing secret', async () => {
    // The first start's line shows the project key, by design: only what comes after counts.
    const from = d.logs().length;
    const distinctId = 'access-log-person-4711';
    const flagsBody = JSON.stringify({ token: d.projectKey, distinct_id: distinctId });
    const flags = await send(d, `/flags/?v=2&token=${d.projectKey}`, { body: flagsBody, headers: { 'content-type': 'application/json' } });
    expect(flags.status).toBe(200);
    const definitions = await send(d, `/flags/definitions?token=${d.projectKey}`, {
      headers: { authorization: `Bearer ${d.personalKey}` },
    });
    expect(definitions.status).toBe(200);
    const captureBody = JSON.stringify({ token: d.projectKey, event: 'access-log-event', distinct_id: distinctId });
    expect((await send(d, '/e/', { body: captureBody, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    expect((await send(d, `/array/${d.projectKey}/config.js`)).status).toBe(200);
    expect((await postJson(d, '/batch/', { api_key: d.projectKey, batch: [{ pad: 'x'.repeat(2000) }] })).status).toBe(413);
    expect((await send(d, '/nowhere?api_key=x')).status).toBe(404);

    const flagsLine = await lineFor(d, 'POST', '/flags/');
    expect(flagsLine).toMatchObject({
      level: 'debug',
      status: 200,
      project_id: 1,
      request_bytes: Buffer.byteLength(flagsBody),
      response_bytes: Buffer.byteLength(flags.text),
    });
    expect(flagsLine.duration_ms).toBeGreaterThan(0);
    expect(await lineFor(d, 'GET', '/flags/definitions')).toMatchObject({
      status: 200,
      project_id: 1,
      request_bytes: 0,
      response_bytes: Buffer.byteLength(definitions.text),
    });
    expect(await lineFor(d, 'POST', '/e/')).toMatchObject({
      status: 200,
      project_id: 1,
      request_bytes: Buffer.byteLength(captureBody),
      response_bytes: Buffer.byteLength('{"status":1}'),
    });
    expect(await lineFor(d, 'GET', '/array/[key]/config.js')).toMatchObject({ status: 200 });
    const tooLarge = await lineFor(d, 'POST', '/batch/');
    expect(tooLarge).toMatchObject({ status: 413 });
    expect(tooLarge.request_bytes).toBeGreaterThan(2000); // its declared length: the body was not read
    expect(await lineFor(d, 'GET', '/nowhere')).toMatchObject({ status: 404 });
    expect(await lineFor(d, 'GET', '/nowhere')).not.toHaveProperty('project_id');

    // Once each, and nothing that came with a request but its method and path.
    expect(requestLines(d).filter((l) => l.path === '/flags/')).toHaveLength(1);
    const text = d.logs().slice(from).join('\n');
    for (const secret of [d.projectKey, d.personalKey, distinctId, 'Bearer', 'authorization', 'access-log-event', 'api_key']) {
      expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    }
  });
});

describe('the access log follows the level that SIGHUP reloads, in the front-end threads too', () => {
  it('writes no request line at info, writes them once debug is reloaded, and stops again', async () => {
    const envFile = path.join(makeTempDir('hedgerow-env-'), 'hedgerow.env');
    writeFileSync(envFile, 'HEDGEROW_LOG_LEVEL=info\n');
    const d = await startDaemon({ backend: 'uws', args: ['--env-file', envFile], env: { HEDGEROW_LOG_LEVEL: undefined } });
    const reload = async (level: string) => {
      writeFileSync(envFile, `HEDGEROW_LOG_LEVEL=${level}\n`);
      const seen = d.records().filter((l) => l.msg === 'SIGHUP: reloaded the log level').length;
      d.child.kill('SIGHUP');
      const deadline = Date.now() + 5000;
      while (d.records().filter((l) => l.msg === 'SIGHUP: reloaded the log level').length === seen && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // /flags is answered in a front-end thread, /e/ on the main thread.
    const traffic = async () => {
      expect((await postJson(d, '/flags/', { token: d.projectKey, distinct_id: 'x' })).status).toBe(200);
      expect((await postJson(d, '/e/', { token: d.projectKey, event: 'e', distinct_id: 'x' })).status).toBe(200);
    };
    await traffic();
    await reload('debug');
    await traffic();
    await lineFor(d, 'POST', '/flags/');
    await lineFor(d, 'POST', '/e/');
    await reload('info');
    const before = requestLines(d).length;
    await traffic();
    // Lines are written at the end of the turn that answered: 200 ms leaves room for any.
    await new Promise((r) => setTimeout(r, 200));
    expect(requestLines(d).length).toBe(before);
    expect(requestLines(d).map((l) => `${l.method} ${l.path}`)).toEqual(['POST /flags/', 'POST /e/']);
    expect(await d.stop()).toBe(0);
  });
});
