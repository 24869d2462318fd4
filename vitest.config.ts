import { defineConfig } from 'vitest/config';

// The tests talk to 127.0.0.1 over plain HTTP and to PostgreSQL without TLS, never to a real provider. A
// sandbox that sets NODE_EXTRA_CA_CERTS to the system bundle makes every node process parse it at start
// (~100 ms of CPU each: `node -e 0` 0.14 s against 0.04 s), and the suite starts thousands of them (bin/assay,
// servers, workers, the fake provider, vitest's own workers) on a CPU-bound 2-core CI machine. Unset here,
// before any worker starts, so that every process of the run inherits the environment without it.
delete process.env.NODE_EXTRA_CA_CERTS;

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
