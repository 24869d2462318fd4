import { expect, it } from 'vitest';
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
