import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30000,
    hookTimeout: 30000,
    // Integration files spawn their own daemons (separate processes, ports and data directories),
    // so they can run in parallel; forks keep each file in its own process.
    pool: 'forks',
  },
});
