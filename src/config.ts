import { z } from 'zod';
import { badInput } from './domain/errors.ts';
import { canonicalHostName } from './domain/host-names.ts';
import { readDecimal } from './domain/limit-values.ts';
import { type JobTimes, readJobTimes } from './jobs/env-seconds.ts';
import type { Database, OpenOptions } from './db/client.ts';
import type { ProviderKeys } from './judges/adapters/index.ts';

/**
 * Process configuration, read from the environment once at start. A bad value stops the process with
 * one line naming the variable, rather than surfacing later as a confusing runtime failure.
 */

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalString = z.preprocess(blankToUndefined, z.string().optional());
/**
 * An integer variable: trimmed, blank is unset (the default), otherwise digits by the one rule of
 * domain/limit-values.ts readDecimal. z.coerce read PORT=0x50 as 80 and 1e3 as 1000 and started on them.
 */
const readInteger = (v: unknown, ctx: { addIssue: (i: { code: 'custom'; message: string; input: unknown }) => void }) => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t === '') return undefined;
  const n = readDecimal(t, { integer: true });
  if (typeof n === 'number') return n;
  ctx.addIssue({ code: 'custom', message: `must be a whole number written in digits, got '${t.length > 40 ? `${t.slice(0, 40)}…` : t}'`, input: v });
  return z.NEVER;
};
const intWithDefault = (def: number, min: number) => z.preprocess(readInteger, z.number().int().min(min).default(def));

/** ASSAY_ALLOWED_HOSTS: comma-separated host names (no port) served besides the loopback names. */
const allowedHosts = z.preprocess(
  blankToUndefined,
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const names: string[] = [];
      for (const entry of (v ?? '').split(',').filter((e) => e.trim() !== '')) {
        const name = canonicalHostName(entry);
        if (name === null) {
          ctx.addIssue({ code: 'custom', message: `'${entry.trim()}' is not a host name (write names or IP addresses without scheme, port or path, separated by commas)` });
          return z.NEVER;
        }
        names.push(name);
      }
      return names;
    }),
);

/**
 * ASSAY_PUBLIC_ORIGIN: the origin browsers use when a proxy stands in front (TLS terminated there,
 * `https://assay.example.org`). Without it a session write through such a proxy is refused as
 * cross-origin: the browser sends `Origin: https://…` while the server sees `http://127.0.0.1:8787`.
 */
const publicOrigin = z.preprocess(
  blankToUndefined,
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      let url: URL | null = null;
      try {
        url = new URL(v);
      } catch {
        url = null;
      }
      const bare = url && (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
      const origin = bare ? url!.origin : null;
      if (origin === null) {
        ctx.addIssue({ code: 'custom', message: `'${v}' is not an origin (write scheme://host[:port], http or https, with no path, query or credentials)` });
        return z.NEVER;
      }
      return origin;
    }),
);

const ConfigSchema = z.object({
  PORT: intWithDefault(8787, 0).pipe(z.number().max(65535)),
  HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  ASSAY_ALLOWED_HOSTS: allowedHosts,
  ASSAY_PUBLIC_ORIGIN: publicOrigin,
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  ASSAY_DATA_DIR: z.preprocess(blankToUndefined, z.string().default('./data')),
  BODY_LIMIT_BYTES: intWithDefault(10 * 1024 * 1024, 1),
  RATE_LIMIT_PER_MINUTE: intWithDefault(600, 1),
  ANTHROPIC_API_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: z.preprocess(blankToUndefined, z.url().optional()),
  ANTHROPIC_BASE_URL: z.preprocess(blankToUndefined, z.url().optional()),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(blankToUndefined, z.url().optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess(blankToUndefined, z.url().optional()),
  OTEL_SERVICE_NAME: optionalString,
});

export interface Config {
  port: number;
  host: string;
  /** Host names served besides loopback and the listen host (the DNS-rebinding check, src/api/host-check.ts). */
  allowedHosts: string[];
  /** The origin browsers reach the service at through a proxy (ASSAY_PUBLIC_ORIGIN); same-origin besides the request's own. */
  publicOrigin: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  anthropicApiKey: string | undefined;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  anthropicBaseUrl: string | undefined;
  /** OpenTelemetry tracing (src/telemetry.ts): on when an OTLP endpoint is set. */
  otlpEndpoint: string | undefined;
  otlpTracesEndpoint: string | undefined;
  serviceName: string | undefined;
  /**
   * The grade queue's and the workers' times (ASSAY_JOB_EXPIRE_SECONDS, ASSAY_JOB_MAINTENANCE_SECONDS,
   * ASSAY_WORKER_HEARTBEAT_SECONDS, _DEAD_SECONDS, _SWEEP_SECONDS): the fronts hand them to the queue
   * (gradingQueue, migrateDatabase) and to the workers (startWorker).
   */
  jobs: JobTimes;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const r = ConfigSchema.safeParse(env);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw badInput(`environment: ${issue.path.join('.')}: ${issue.message}`);
  }
  const c = r.data;
  let jobs: JobTimes;
  try {
    jobs = readJobTimes(env);
  } catch (e) {
    throw badInput(`environment: ${(e as Error).message}`);
  }
  return {
    port: c.PORT,
    host: c.HOST,
    allowedHosts: c.ASSAY_ALLOWED_HOSTS,
    publicOrigin: c.ASSAY_PUBLIC_ORIGIN,
    databaseUrl: c.DATABASE_URL,
    dataDir: c.ASSAY_DATA_DIR,
    bodyLimitBytes: c.BODY_LIMIT_BYTES,
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    anthropicApiKey: c.ANTHROPIC_API_KEY,
    openaiApiKey: c.OPENAI_API_KEY,
    openaiBaseUrl: c.OPENAI_BASE_URL,
    anthropicBaseUrl: c.ANTHROPIC_BASE_URL,
    otlpEndpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT,
    otlpTracesEndpoint: c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    serviceName: c.OTEL_SERVICE_NAME,
    jobs,
  };
}

/** The provider credentials and endpoints the judge adapters take. */
export const providerKeys = (config: Partial<Pick<Config, 'anthropicApiKey' | 'anthropicBaseUrl' | 'openaiApiKey' | 'openaiBaseUrl'>>): ProviderKeys => ({
  anthropicApiKey: config.anthropicApiKey,
  anthropicBaseUrl: config.anthropicBaseUrl,
  openaiApiKey: config.openaiApiKey,
  openaiBaseUrl: config.openaiBaseUrl,
});

/**
 * PostgreSQL when DATABASE_URL is set, otherwise PGlite in ASSAY_DATA_DIR — owned by this process, or
 * reached through the process that owns it (src/db/pglite-directory.ts). Not migrated.
 */
export async function openConfiguredDatabase(config: Config, opts: Pick<OpenOptions, 'waitForShortLivedOwner' | 'template' | 'shortLived'> = {}): Promise<Database> {
  const { openDatabase } = await import('./db/client.ts');
  return config.databaseUrl ? openDatabase({ url: config.databaseUrl }) : openDatabase({ dataDir: config.dataDir, ...opts });
}
