import { defineConfig } from 'vitest/config';

/**
 * Unit tests that run the compiled code (dist/, from `npm run build`) in a worker thread or a child
 * process. The other unit tests need no build and no daemon: `npm run test:unit` runs them alone.
 */
const UNIT_NEEDS_BUILD = [
  'test/unit/flag-dependency-depth.test.ts',
  'test/unit/http-backends.test.ts',
  'test/unit/ingest-pool-settle.test.ts',
  'test/unit/logger.test.ts',
  'test/unit/person-processor-thread-exit.test.ts',
  'test/unit/thread-cpu.test.ts',
];

/**
 * Integration files that run last, one at a time with the machine to themselves: the full-disk
 * test (filling a small tmpfs under load, whose timing another file's load would change) and the
 * browser tests (Chromium beside another file's daemons on two cores misses posthog-js's timings).
 */
const RUNS_ALONE = [
  'test/integration/store-full-disk.test.ts',
  'test/integration/posthog-js-browser.test.ts',
  'test/integration/dashboard-browser.test.ts',
];

/**
 * Unit tests that need a process of their own: one measures its thread's heap (in the unit
 * project's shared threads other files' garbage and timers are there too); one unmounts the
 * tmpfs its store lived on, which a shared thread can still hold mapped ("target is busy").
 */
const UNIT_OWN_PROCESS = ['test/unit/heap-release.test.ts', 'test/unit/person-processor-disk-full.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30000,
    hookTimeout: 30000,
    // Only the unit project uses threads. Its files share them and their module cache, which takes
    // a third of the time that a process per file does; vitest reads this from the root config.
    poolOptions: { threads: { isolate: false } },
    // Integration files mostly wait on the daemons they start: two at a time took the whole
    // `npm test` from about 6 to 4.8 minutes on a 2-core machine (2026-11-27).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...UNIT_NEEDS_BUILD, ...UNIT_OWN_PROCESS],
          // In-process code only: the files share threads and their module cache (see poolOptions).
          pool: 'threads',
          // First: the integration files that follow run two at a time.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'built',
          include: ['test/integration/**/*.test.ts', ...UNIT_NEEDS_BUILD, ...UNIT_OWN_PROCESS],
          exclude: RUNS_ALONE,
          // Integration files spawn their own daemons (separate processes, ports and data
          // directories), so they can run in parallel; forks keep each file in its own process.
          pool: 'forks',
          sequence: { groupOrder: 1 },
        },
      },
      // One group each: groups run one after another.
      ...RUNS_ALONE.map((file, i) => ({
        extends: true,
        test: { name: `alone-${i + 1}`, include: [file], pool: 'forks' as const, sequence: { groupOrder: 2 + i } },
      })),
    ],
  },
});
