import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import { sql, type SQL } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { QUEUE_TIMES } from './env-seconds.ts';

/**
 * pg-boss over the project's own connection, on both engines: PGlite through an executeSql adapter
 * (pg-boss sends multi-statement maintenance SQL without parameters, which PGlite runs with `exec`),
 * PostgreSQL through postgres.js `unsafe`. Workers on any number of machines share the queue through
 * the database alone.
 */

export const GRADE_QUEUE = 'assay-grade';
export const DEAD_QUEUE = 'assay-grade-dead';

/** A grading job: one answer of one grading run (which names the judge). */
export interface GradeJobData {
  gradingRunId: number;
  answerId: number;
}

export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

export interface BossOptions {
  /** Seconds a job may stay active before pg-boss expires and retries it (a crashed worker's jobs). */
  expireInSeconds?: number;
  /** Attempts after the first before a job is dead-lettered. */
  retryLimit?: number;
  /** First retry delay in seconds (doubled each retry by pg-boss's backoff). */
  retryDelay?: number;
  /** How often a worker expires stalled jobs (pg-boss maintenance; one worker per interval runs it). */
  maintenanceIntervalSeconds?: number;
  supervise?: boolean;
}

/**
 * The defaults. The environment's ASSAY_JOB_* are configuration (src/config.ts, read once when a command
 * starts): the fronts pass config.jobs.queue; nothing here reads the environment.
 */
export function defaultBoss(): Required<BossOptions> {
  return { ...QUEUE_TIMES, retryLimit: 4, retryDelay: 2, supervise: true };
}

export function executorFor(database: Database): SqlExecutor {
  const client = (database.db as unknown as { $client: any }).$client;
  if (database.kind === 'pglite') {
    return {
      async executeSql(text, values) {
        if (values?.length) return client.query(text, values);
        const results = await client.exec(text);
        return results.at(-1) ?? { rows: [] };
      },
    };
  }
  return {
    async executeSql(text, values) {
      // pg-boss wraps maintenance in BEGIN … COMMIT; postgres.js only allows that on one reserved
      // connection, which sql.begin provides.
      const wrapped = /^\s*BEGIN;([\s\S]*)COMMIT;\s*$/.exec(text);
      if (wrapped && !values?.length) {
        await client.begin((tx: any) => tx.unsafe(wrapped[1]));
        return { rows: [] };
      }
      // pg-boss sends a fixed set of parameterised statements: prepared once per connection, they skip
      // a parse and plan per job (postgres.js `unsafe` does not prepare unless asked).
      const r = await client.unsafe(text, (values ?? []).map(asParam) as any[], { prepare: Boolean(values?.length) });
      return { rows: Array.isArray(r) ? [...r] : [] };
    },
  };
}

/** postgres.js refuses undefined and sends untyped objects as text: pg-boss's jsonb arguments must arrive as JSON. */
const asParam = (v: unknown): unknown =>
  v === undefined ? null : v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v) ? JSON.stringify(v) : v;

/** An executor bound to an open drizzle transaction: pg-boss writes commit or roll back with it. */
export function transactionExecutor(tx: Queryable): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const parts = text.split(/\$(\d+)/);
      const chunks: SQL[] = [];
      // sql.param keeps an array one parameter (drizzle would spread it into a list).
      parts.forEach((p, i) => chunks.push(i % 2 === 0 ? sql.raw(p) : sql`${sql.param(asParam(values[Number(p) - 1]))}`));
      const r: any = await tx.execute(sql.join(chunks, sql.raw('')));
      return { rows: Array.isArray(r) ? [...r] : (r?.rows ?? []) };
    },
  };
}

/** A job id derived from what the job grades: re-enqueueing the same answer × judge is a no-op. */
export function gradeJobId(judgeConfigHash: string, answerId: number): string {
  const h = createHash('sha256').update(`grade:${judgeConfigHash}:${answerId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * How long pg-boss leaves a failed job in pgboss.job before its maintenance archives it: for good. Its
 * default archived failed jobs 12 h after they failed and deleted them from the archive 7 days later,
 * and with them the failure and its reason: the answer then read as remaining (in a run with nothing
 * left to grade), `assay jobs --state failed` listed nothing and `assay jobs retry` found nothing to retry.
 * A failed grade job now stays until it is retried or its answer enqueued again (one row per failed answer).
 */
const FAILED_KEPT_SECONDS = 50 * 365 * 86_400;

/**
 * The grade queue's retention: pg-boss sets a waiting job's keep_until once, at insert (enqueue time +
 * this), and its maintenance archives a waiting job past it. At 30 days, answers enqueued and not worked
 * within a month (`assay run --enqueue-only`, no worker) left the queue unrun, listed nowhere, while their
 * progress still read remaining. A waiting grade job now stays until it is worked or cancelled.
 */
const WAITING_KEPT_MINUTES = 50 * 365 * 24 * 60;

/**
 * Moves archived failed grade jobs back to pgboss.job ($1: the queue; $2: their ids, or null for all of
 * them), those no job of the same id shadows (archive.ts). Used by the retry, and once when a queue made
 * before FAILED_KEPT_SECONDS is updated: failures it archived would be deleted 7 days after archiving.
 */
export const UNARCHIVE_FAILED = `with moved as (
     delete from pgboss.archive a where a.name = $1 and ($2::uuid[] is null or a.id = any($2::uuid[])) and a.state = 'failed'
       and not exists (select 1 from pgboss.job c where c.name = a.name and c.id = a.id)
     returning a.*)
   insert into pgboss.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output)
   select id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output from moved
   on conflict do nothing`;

const KEEP_WAITING = `update pgboss.job set keep_until = greatest(keep_until, start_after + make_interval(mins => $2::int)) where name = $1 and state < 'active'`;

/** Starts pg-boss (creating or upgrading its schema idempotently) and the two queues. */
export async function startBoss(database: Database, o: BossOptions = {}): Promise<PgBoss> {
  const opts = { ...defaultBoss(), ...o };
  // Loaded here, not with this module: the server and most commands import the queue's names and
  // types but never start it (pg-boss and its dependencies are ~25 ms of a cold start).
  const { default: PgBossClass } = await import('pg-boss');
  const boss = new PgBossClass({
    db: executorFor(database),
    supervise: opts.supervise,
    schedule: false,
    maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds,
    archiveFailedAfterSeconds: FAILED_KEPT_SECONDS,
  } as PgBoss.ConstructorOptions);
  boss.on('error', () => {
    // Maintenance errors (a lost race between workers) are retried on the next interval.
  });
  await withRetry(() => boss.start());
  const queues = await boss.getQueues();
  const names = new Set(queues.map((q) => q.name));
  if (!names.has(DEAD_QUEUE)) await withRetry(() => boss.createQueue(DEAD_QUEUE, { name: DEAD_QUEUE, retentionMinutes: 60 * 24 * 30 } as PgBoss.Queue));
  const gradeQueue = {
    name: GRADE_QUEUE,
    policy: 'standard',
    retryLimit: opts.retryLimit,
    retryDelay: opts.retryDelay,
    retryBackoff: true,
    expireInSeconds: opts.expireInSeconds,
    retentionMinutes: WAITING_KEPT_MINUTES,
    deadLetter: DEAD_QUEUE,
  } as PgBoss.Queue;
  const current = queues.find((q) => q.name === GRADE_QUEUE) as Record<string, unknown> | undefined;
  if (!current) await withRetry(() => boss.createQueue(GRADE_QUEUE, gradeQueue));
  // Rewritten only when a setting changed: every `assay run` starts a queue, and a write costs more than the read.
  else if (QUEUE_FIELDS.some((k) => current[k] !== (gradeQueue as unknown as Record<string, unknown>)[k])) {
    await boss.updateQueue(GRADE_QUEUE, gradeQueue);
    // A queue made before waiting and failed jobs were kept, once: jobs enqueued under the shorter retention
    // keep the keep-until of their insert, renewed here, and failures already archived (deleted by
    // maintenance 7 days after) come back to pgboss.job. Once, not at every start: the archive holds a
    // week of completed jobs.
    if (current.retentionMinutes !== WAITING_KEPT_MINUTES) {
      const exec = executorFor(database);
      await exec.executeSql(KEEP_WAITING, [GRADE_QUEUE, WAITING_KEPT_MINUTES]);
      await exec.executeSql(UNARCHIVE_FAILED, [GRADE_QUEUE, null]);
    }
  }
  return boss;
}

/** The grade queue's settings as getQueues() returns them (createdOn, updatedOn aside). */
const QUEUE_FIELDS = ['policy', 'retryLimit', 'retryDelay', 'retryBackoff', 'expireInSeconds', 'retentionMinutes', 'deadLetter'] as const;

/** Two workers starting at once race on schema creation; the loser finds it done on a second try. */
async function withRetry<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch {
    await new Promise((r) => setTimeout(r, 300));
    return f();
  }
}
