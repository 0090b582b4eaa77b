/**
 * Chains of flag dependencies longer than the stack: the management API's cycle check and the
 * definitions' `dependency_chain`s walk them without recursion. A writer can build such a chain
 * one flag at a time; walked by recursion, every later update of its flags and every definitions
 * poll of the project failed with a RangeError.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { HedgerowError } from '../../src/errors.js';
import type { FeatureFlagRecord } from '../../src/flags/feature-flag.js';
import { checkFlagDependencies } from '../../src/flags/flag-dependencies.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

const dependsOn = (id: number) => ({ key: String(id), type: 'flag', value: true, operator: 'flag_evaluates_to' });

/** Flags 1…n, each depending on the one before. */
function chainOfFlags(n: number): Map<number, FeatureFlagRecord> {
  const flags = new Map<number, FeatureFlagRecord>();
  for (let id = 1; id <= n; id++) {
    const properties = id > 1 ? [dependsOn(id - 1)] : [];
    flags.set(id, flagRecordWith({ id, key: `f${id}`, name: `f${id}`, filters: { groups: [{ properties, rollout_percentage: 100 }] } }));
  }
  return flags;
}

describe('flag dependency chains deeper than the stack', () => {
  it('the cycle check of an update walks a chain of 20,000 flags', () => {
    const flags = chainOfFlags(20_000);
    expect(() => checkFlagDependencies(flags.get(20_000)!, flags)).not.toThrow();
    const closing = { id: 1, key: 'f1', filters: { groups: [{ properties: [dependsOn(20_000)], rollout_percentage: 100 }] } };
    let error: unknown;
    try {
      checkFlagDependencies(closing, flags);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HedgerowError);
    expect((error as HedgerowError).message).toMatch(/^Circular dependency detected: f1 → f20000 → f19999 → .* → f2 → f1$/);
  });

  // The definitions' chains are quadratic in size (every flag lists all below it, as Django
  // serves them), so the depth is tested on a small stack instead of a long chain: a worker
  // thread of 512 KB runs the built module (npm test builds first; a worker cannot load .ts).
  it('the dependency_chain of every flag of a 2,500-flag chain, on a 512 KB stack', async () => {
    const built = new URL('../../dist/src/flags/definitions/dependency-chain.js', import.meta.url).href;
    const code = `
      const { parentPort } = require('node:worker_threads');
      import(${JSON.stringify(built)}).then((m) => {
        const n = 2500;
        const flags = [];
        for (let i = 1; i <= n; i++) {
          const properties = i > 1 ? [{ key: String(i - 1), type: 'flag', value: true, operator: 'flag_evaluates_to' }] : [];
          flags.push({ key: 'f' + i, filters: { groups: [{ properties }] } });
        }
        m.applyDependencyChains(flags, new Map(flags.map((f, i) => [String(i + 1), f.key])));
        const top = flags[n - 1].filters.groups[0].properties[0];
        parentPort.postMessage({ key: top.key, length: top.dependency_chain.length, first: top.dependency_chain[0], last: top.dependency_chain[n - 2] });
      }).catch((e) => parentPort.postMessage({ error: String(e) }));`;
    const worker = new Worker(code, { eval: true, resourceLimits: { stackSizeMb: 0.5 } });
    const answer = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(answer).toEqual({ key: 'f2499', length: 2499, first: 'f1', last: 'f2499' });
  });
});
