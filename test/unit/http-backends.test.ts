/**
 * Runs the shared HTTP backend suite against every implementation (uWS on this thread, uWS in
 * front-end threads, node:http), and checks uWS is native here.
 */

import { describe, expect, it } from 'vitest';
import { createHttpBackend } from '../../src/http/create-backend.js';
import { loadUws, uwsBinaryName } from '../../src/http/load-uws.js';
import { createNodeBackend } from '../../src/http/node-backend.js';
import { createUwsBackend } from '../../src/http/uws-backend.js';
import { createUwsThreadsBackend, type ThreadsBackend } from '../../src/http/uws-threads-backend.js';
import type { BackendOptions } from '../../src/http/types.js';
import { options, runBackendSuite } from '../http-backend/backend.case.js';
import { request } from '../http-backend/client.js';
import { freePort } from '../helpers/free-port.js';

const loaded = loadUws();

describe('uWS native binding', () => {
  it('loads the real .node binary for this platform and Node ABI', () => {
    if (!loaded.ok) throw new Error(`uWS did not load: ${loaded.reason}`);
    expect(loaded.binaryPath.endsWith(`/binaries/${uwsBinaryName()}`)).toBe(true);
    expect(uwsBinaryName()).toBe(`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
    expect(typeof loaded.uws.App).toBe('function');
  });

  it('reports why a binary does not load', () => {
    const r = loadUws('/nonexistent/uws.node');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/no native uWS binary/);
  });

  it('createHttpBackend picks uWS for auto and uws, node:http for node', () => {
    for (const [kind, name] of [
      ['auto', 'uws'],
      ['uws', 'uws'],
      ['node', 'node'],
    ] as const) {
      const { backend, note } = createHttpBackend(kind, options());
      expect(backend.name).toBe(name);
      expect(note).toBeUndefined();
      void backend.close();
    }
  });
});

runBackendSuite('uws', (opts) => {
  if (!loaded.ok) throw new Error(`uWS did not load: ${loaded.reason}`);
  return createUwsBackend(loaded.uws, opts);
});
runBackendSuite('node', createNodeBackend);

/** The built thread script (`npm test` builds first; vitest runs the sources, threads run dist/). */
const threadScript = new URL('../../dist/workers/http-thread.js', import.meta.url);

/**
 * Front ends that answer nothing themselves: with `serveOnThisThread` false, every request goes
 * through the forwarding path of a front-end thread.
 */
function threadsBackend(opts: BackendOptions, threads = 2, serveOnThisThread = true): ThreadsBackend {
  if (!loaded.ok) throw new Error(`uWS did not load: ${loaded.reason}`);
  return createUwsThreadsBackend({
    ...opts,
    threads,
    serveOnThisThread,
    logLevel: 'info',
    uws: loaded.uws,
    uwsBinaryPath: loaded.binaryPath,
    threadScript,
    onThreadError: (err) => {
      throw err;
    },
  });
}

runBackendSuite('uws', (opts) => threadsBackend(opts, 2, false), 'uws in front-end threads');
runBackendSuite('uws', (opts) => threadsBackend(opts), "uws on the daemon's thread beside front-end threads");

describe('uWS front-end threads', () => {
  it("share a port given by number with the daemon's thread and all reach the handler; port 0 is served by one front end", async () => {
    const seen: string[] = [];
    const b = threadsBackend(
      options((req) => {
        seen.push(req.header('x-id'));
        return { status: 200, body: `${req.method} ${req.path} ${req.header('x-id')} ${req.body.length}` };
      }),
      3,
    );
    try {
      const port = await b.listen('127.0.0.1', await freePort());
      expect(b.threadCount).toBe(3);
      // A fresh connection per request: the kernel spreads them over the three listening threads.
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          request(port, { method: 'POST', path: `/r${i}`, headers: { 'x-id': String(i), connection: 'close' }, body: Buffer.from('abc') }),
        ),
      );
      replies.forEach((r, i) => expect([r.status, r.body.toString()]).toEqual([200, `POST /r${i} ${i} 3`]));
      expect(seen.sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 60 }, (_, i) => String(i)));
    } finally {
      await b.close();
    }
    const alone = threadsBackend(options(), 3);
    try {
      await alone.listen('127.0.0.1', 0);
      expect(alone.threadCount).toBe(1);
    } finally {
      await alone.close();
    }
  });

  it('refuse a port given by number that another server already listens on (uWS alone would share it)', async () => {
    const first = threadsBackend(options(), 1);
    const second = threadsBackend(options(), 1);
    try {
      const port = await first.listen('127.0.0.1', await freePort());
      await expect(second.listen('127.0.0.1', port)).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: address in use`);
      expect(second.threadCount).toBe(0);
      expect((await request(port, { path: '/still-first' })).status).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('report a thread that cannot load the uWS binary when listening', async () => {
    if (!loaded.ok) throw new Error(`uWS did not load: ${loaded.reason}`);
    const b = createUwsThreadsBackend({
      ...options(),
      threads: 1,
      serveOnThisThread: false,
      logLevel: 'info',
      uws: loaded.uws,
      uwsBinaryPath: '/nonexistent/uws.node',
      threadScript,
      onThreadError: () => {},
    });
    await expect(b.listen('127.0.0.1', 0)).rejects.toThrow(/HTTP thread did not start: no native uWS binary/);
    await b.close();
  });
});
