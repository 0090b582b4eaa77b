/** Runs the shared HTTP backend suite against both implementations, and checks uWS is native here. */

import { describe, expect, it } from 'vitest';
import { createHttpBackend } from '../../src/http/create-backend.js';
import { loadUws, uwsBinaryName } from '../../src/http/load-uws.js';
import { createNodeBackend } from '../../src/http/node-backend.js';
import { createUwsBackend } from '../../src/http/uws-backend.js';
import { options, runBackendSuite } from '../http-backend/backend.case.js';

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
    for (const [kind, name] of [['auto', 'uws'], ['uws', 'uws'], ['node', 'node']] as const) {
      const { backend, note } = createHttpBackend(kind, options());
      expect(backend.name).toBe(name);
      expect(note).toBeUndefined();
      backend.close();
    }
  });
});

runBackendSuite('uws', (opts) => {
  if (!loaded.ok) throw new Error(`uWS did not load: ${loaded.reason}`);
  return createUwsBackend(loaded.uws, opts);
});
runBackendSuite('node', createNodeBackend);
