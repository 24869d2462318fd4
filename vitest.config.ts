import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    pool: 'forks',
    // Two files at a time even on two cores: vitest's default (cores − 1) ran the suite one file at a
    // time, with the CPU ~40% idle while tests wait on child processes, the fake provider's latency and
    // the database (each suite has its own database and ports, so files do not share state).
    maxWorkers: 2,
    setupFiles: ['test/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
