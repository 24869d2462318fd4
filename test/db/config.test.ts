import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

it('defaults: PGlite in ./data on 127.0.0.1:8787, 10 MB bodies, 600 requests a minute', () => {
  expect(loadConfig({})).toEqual({
    port: 8787,
    host: '127.0.0.1',
    allowedHosts: [],
    databaseUrl: undefined,
    dataDir: './data',
    bodyLimitBytes: 10 * 1024 * 1024,
    rateLimitPerMinute: 600,
    anthropicApiKey: undefined,
    openaiApiKey: undefined,
    openaiBaseUrl: undefined,
    jobs: { queue: { expireInSeconds: 600, maintenanceIntervalSeconds: 30 }, liveness: { heartbeatMs: 5000, deadAfterMs: 30_000, sweepMs: 5000 } },
  });
});

it('reads every variable; blank counts as unset', () => {
  const c = loadConfig({
    PORT: '9000',
    HOST: '0.0.0.0',
    ASSAY_ALLOWED_HOSTS: ' Assay.Lab.Example, 10.0.0.5,::1,[fe80::1] ,',
    DATABASE_URL: 'postgres://u@db:5432/x',
    ASSAY_DATA_DIR: '/var/assay',
    BODY_LIMIT_BYTES: '1024',
    RATE_LIMIT_PER_MINUTE: '5',
    ANTHROPIC_API_KEY: 'sk-a',
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1',
  });
  expect(c).toEqual({
    port: 9000,
    host: '0.0.0.0',
    allowedHosts: ['assay.lab.example', '10.0.0.5', '[::1]', '[fe80::1]'],
    databaseUrl: 'postgres://u@db:5432/x',
    dataDir: '/var/assay',
    bodyLimitBytes: 1024,
    rateLimitPerMinute: 5,
    anthropicApiKey: 'sk-a',
    openaiApiKey: undefined,
    openaiBaseUrl: 'http://127.0.0.1:1234/v1',
    jobs: { queue: { expireInSeconds: 600, maintenanceIntervalSeconds: 30 }, liveness: { heartbeatMs: 5000, deadAfterMs: 30_000, sweepMs: 5000 } },
  });
});

it('an integer with spaces around it is that integer (as a query number); blank is unset', () => {
  expect(loadConfig({ PORT: ' 9000 ' }).port).toBe(9000);
  expect(loadConfig({ PORT: '  ' }).port).toBe(8787);
  expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '+60' }).rateLimitPerMinute).toBe(60);
});

it.each([
  [{ PORT: 'eighty' }, /^environment: PORT: /],
  [{ PORT: '70000' }, /^environment: PORT: /],
  [{ DATABASE_URL: 'mysql://x' }, 'environment: DATABASE_URL: must be a postgres:// or postgresql:// URL'],
  [{ BODY_LIMIT_BYTES: '0' }, /^environment: BODY_LIMIT_BYTES: /],
  [{ OPENAI_BASE_URL: 'not a url' }, /^environment: OPENAI_BASE_URL: /],
  [{ ASSAY_ALLOWED_HOSTS: 'assay.example:8787' }, /^environment: ASSAY_ALLOWED_HOSTS: 'assay.example:8787' is not a host name/],
  [{ ASSAY_ALLOWED_HOSTS: 'ok.example,https://assay.example' }, /^environment: ASSAY_ALLOWED_HOSTS: 'https:\/\/assay.example' is not a host name/],
  [{ ASSAY_ALLOWED_HOSTS: 'assay.example/docs' }, /^environment: ASSAY_ALLOWED_HOSTS: /],
  // Integers are written in digits (domain/limit-values.ts readDecimal): before, z.coerce read PORT=0x50 as 80,
  // 1e3 as 1000, 80.0 as 80 and 0b1 as 1, RATE_LIMIT_PER_MINUTE=0x10 as 16, and started on them.
  [{ PORT: '0x50' }, "environment: PORT: must be a whole number written in digits, got '0x50'"],
  [{ PORT: '1e3' }, "environment: PORT: must be a whole number written in digits, got '1e3'"],
  [{ PORT: '80.0' }, /^environment: PORT: must be a whole number written in digits/],
  [{ PORT: '0b1' }, /^environment: PORT: must be a whole number written in digits/],
  [{ PORT: 'Infinity' }, /^environment: PORT: must be a whole number written in digits/],
  [{ RATE_LIMIT_PER_MINUTE: '0x10' }, /^environment: RATE_LIMIT_PER_MINUTE: must be a whole number written in digits/],
  [{ BODY_LIMIT_BYTES: '1e7' }, /^environment: BODY_LIMIT_BYTES: must be a whole number written in digits/],
])('fails fast on a bad value, naming the variable: %o', (env, message) => {
  expect(() => loadConfig(env)).toThrow(message);
  try {
    loadConfig(env);
  } catch (e) {
    expect((e as { code: string }).code).toBe('bad_input');
  }
});

// The job queue's times are configuration too: read once at start with the rest, so a typo stops
// `assay serve` / `npm start` at start-up (exit 2) instead of the server starting and its first grading
// request failing when the queue starts (before, jobs/boss.ts and jobs/liveness.ts read them then).
describe('the job queue and worker times', () => {
  it('default to 600 s expiry, 30 s maintenance, heartbeat 5 s, dead after 30 s, sweep 5 s', () => {
    expect(loadConfig({}).jobs).toEqual({
      queue: { expireInSeconds: 600, maintenanceIntervalSeconds: 30 },
      liveness: { heartbeatMs: 5000, deadAfterMs: 30_000, sweepMs: 5000 },
    });
  });
  it('are read from the environment (blank is the default; worker times may be fractional)', () => {
    const c = loadConfig({
      ASSAY_JOB_EXPIRE_SECONDS: ' 45 ',
      ASSAY_JOB_MAINTENANCE_SECONDS: '',
      ASSAY_WORKER_HEARTBEAT_SECONDS: '0.5',
      ASSAY_WORKER_DEAD_SECONDS: '2',
      ASSAY_WORKER_SWEEP_SECONDS: '1',
    });
    expect(c.jobs).toEqual({ queue: { expireInSeconds: 45, maintenanceIntervalSeconds: 30 }, liveness: { heartbeatMs: 500, deadAfterMs: 2000, sweepMs: 1000 } });
  });
  it.each([
    [{ ASSAY_JOB_EXPIRE_SECONDS: '0x10' }, "environment: ASSAY_JOB_EXPIRE_SECONDS: a whole number of seconds in (0, 86400] written in digits, got '0x10'"],
    [{ ASSAY_JOB_EXPIRE_SECONDS: '1.5' }, /^environment: ASSAY_JOB_EXPIRE_SECONDS: a whole number of seconds/],
    [{ ASSAY_JOB_MAINTENANCE_SECONDS: '0' }, /^environment: ASSAY_JOB_MAINTENANCE_SECONDS: a whole number of seconds in \(0, 86400\]/],
    [{ ASSAY_JOB_MAINTENANCE_SECONDS: '1e2' }, /^environment: ASSAY_JOB_MAINTENANCE_SECONDS: /],
    [{ ASSAY_WORKER_HEARTBEAT_SECONDS: 'soon' }, "environment: ASSAY_WORKER_HEARTBEAT_SECONDS: a number of seconds in (0, 3600] written in digits, got 'soon'"],
    [{ ASSAY_WORKER_DEAD_SECONDS: '-3' }, /^environment: ASSAY_WORKER_DEAD_SECONDS: a number of seconds in \(0, 3600\]/],
    [{ ASSAY_WORKER_SWEEP_SECONDS: '7200' }, /^environment: ASSAY_WORKER_SWEEP_SECONDS: a number of seconds in \(0, 3600\]/],
    [{ ASSAY_WORKER_HEARTBEAT_SECONDS: '5', ASSAY_WORKER_DEAD_SECONDS: '8' }, 'environment: worker liveness: the dead-after time (8 s) must be at least twice the heartbeat (5 s)'],
  ])('a bad value stops loadConfig, naming the variable: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (e) {
      expect((e as { code: string }).code).toBe('bad_input');
    }
  });
});
