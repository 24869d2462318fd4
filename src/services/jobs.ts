import type { Database } from '../db/client.ts';
import { AssayError, badInput, notFound } from '../domain/errors.ts';
import { GRADE_JOBS, retryFailed } from '../jobs/archive.ts';
import { GRADE_QUEUE } from '../jobs/boss.ts';
import { LIVE } from '../jobs/leases.ts';
import { UNSETTLED } from './grading/progress.ts';
import { findRun } from './grading/run-ref.ts';
import type { GradingQueue } from './grading/queue.ts';

/**
 * The grading queue as users see it (`assay jobs`, GET /jobs): jobs by state with their answer, run
 * and judge, the last error of failed ones, the workers heartbeating the queue, the provider calls
 * left unsettled by dead workers, and re-running dead-lettered jobs.
 */

export const JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobView {
  id: string;
  state: JobState;
  answerId: number;
  gradingRunId: number;
  run: string | null;
  judge: string | null;
  retryCount: number;
  createdOn: string;
  error: string | null;
}

export interface WorkerView {
  id: string;
  host: string;
  pid: number;
  /** Seconds since the last heartbeat (database clock). */
  lastSeenSeconds: number;
  /** Not seen within the dead-after time: its jobs are handed back to the queue. */
  alive: boolean;
  /** Jobs it held at its last heartbeat. */
  jobs: number;
}

export interface JobQuery {
  state?: JobState;
  run?: string;
  limit?: number;
}

/**
 * Grading jobs with the run and judge they grade for (by the grading_runs row in their data): the queue's
 * jobs and the failed ones pg-boss archived (archive.ts), so a failure never drops out of the list.
 */
const JOBS_WITH_RUNS = `${GRADE_JOBS} j left join grading_runs gr on gr.id = (j.data->>'gradingRunId')::int left join runs r on r.id = gr.run_id left join judges jd on jd.id = gr.judge_id`;

/**
 * A failed job's reason: a worker fails it with {message} (work-loop.ts, leases.ts), pg-boss's expiry with
 * {value: {message}}; anything else is shown as stored, so a failed job never reads as failed for no reason.
 */
const FAILURE_REASON = `coalesce(j.output->>'message', j.output#>>'{value,message}', j.output->>'value', j.output::text, 'no reason recorded')`;

export interface JobList {
  counts: Record<JobState, number>;
  jobs: JobView[];
  workers: WorkerView[];
  /** Ledger rows still pending whose worker is dead (of the run, with `run`): sent, never settled. */
  unsettledCalls: number;
}

export async function listJobs(database: Database, q: JobQuery = {}): Promise<JobList> {
  if (q.state && !JOB_STATES.includes(q.state)) throw badInput(`state: one of ${JOB_STATES.join(', ')}`);
  const w = await database.execute(
    `select id, host, pid, extract(epoch from now() - last_seen)::float8 as ago, ${LIVE} as alive, jsonb_array_length(jobs)::int as jobs from workers w order by started_at, id`,
  );
  const workers = w.rows.map((r) => ({ id: String(r.id), host: String(r.host), pid: Number(r.pid), lastSeenSeconds: Math.round(Number(r.ago)), alive: Boolean(r.alive), jobs: Number(r.jobs) }));
  const u = await database.execute(
    `select count(*)::int as n from usage_ledger l where ${UNSETTLED} and ($1::text is null or l.answer_id in (select a.id from answers a join runs r on r.id = a.run_id where r.name = $1))`,
    [q.run ?? null],
  );
  const unsettledCalls = Number(u.rows[0]?.n ?? 0);
  const present = await database.execute(`select to_regclass('pgboss.job') is not null as ok`);
  const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
  if (!present.rows[0]?.ok) return { counts, jobs: [], workers, unsettledCalls };
  const filter = `j.name = $1 and ($2::text is null or r.name = $2)`;
  const from = JOBS_WITH_RUNS;
  const c = await database.execute(`select j.state::text as state, count(*)::int as n from ${from} where ${filter} group by j.state`, [GRADE_QUEUE, q.run ?? null]);
  for (const row of c.rows) counts[row.state as JobState] = Number(row.n);
  const rows = await database.execute(
    `select j.id::text as id, j.state::text as state, (j.data->>'answerId')::int as answer_id, (j.data->>'gradingRunId')::int as grading_run_id,
       r.name as run, jd.slug as judge, j.retry_count, j.created_on, ${FAILURE_REASON} as error
     from ${from} where ${filter} and ($3::text is null or j.state::text = $3)
     order by j.created_on, j.id limit $4`,
    [GRADE_QUEUE, q.run ?? null, q.state ?? null, q.limit ?? 100],
  );
  const jobs = rows.rows.map((r) => ({
    id: String(r.id),
    state: r.state as JobState,
    answerId: Number(r.answer_id),
    gradingRunId: Number(r.grading_run_id),
    run: r.run ?? null,
    judge: r.judge ?? null,
    retryCount: Number(r.retry_count),
    createdOn: new Date(r.created_on).toISOString(),
    error: r.state === 'failed' ? (r.error ?? null) : null,
  }));
  return { counts, jobs, workers, unsettledCalls };
}

const listed = (xs: string[]): string => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`;

/**
 * Dead-lettered (failed) jobs back to the queue for another round of retries: by id, or all of a run.
 * Named ids are all or nothing: an id that is no grading job (not_found) or a job that is not failed
 * (conflict, with its state) refuses the whole request, so a typo is never a silent "retried 0".
 */
export async function retryFailedJobs(database: Database, queue: GradingQueue, q: { ids?: string[]; run?: string }): Promise<{ retried: number }> {
  const run = q.run !== undefined ? await findRun(database, q.run) : undefined;
  // Started first: it creates the queue's tables on a database that never had them.
  const boss = await queue.boss();
  let ids = [...new Set(q.ids ?? [])];
  if (ids.length > 0) {
    const r = await database.execute(`select j.id::text as id, j.state::text as state, r.name as run from ${JOBS_WITH_RUNS} where j.name = $1 and j.id::text = any($2::text[])`, [GRADE_QUEUE, ids]);
    const state = new Map(r.rows.map((x) => [String(x.id), String(x.state)]));
    const unknown = ids.filter((id) => !state.has(id));
    if (unknown.length) throw notFound(`no grading job ${listed(unknown)} (nothing retried)`);
    // ids with a run: jobs of that run (before, the run was only checked to exist and another run's job was retried).
    const runOf = new Map(r.rows.map((x) => [String(x.id), x.run === null ? null : String(x.run)]));
    const elsewhere = run ? ids.filter((id) => runOf.get(id) !== run.name) : [];
    if (elsewhere.length) throw notFound(`grading job ${listed(elsewhere.map((id) => `${id} is of run ${runOf.get(id) === null ? 'none' : `'${runOf.get(id)}'`}`))}, not '${run!.name}' (nothing retried)`);
    const notFailed = ids.filter((id) => state.get(id) !== 'failed');
    if (notFailed.length) throw new AssayError('conflict', `only failed jobs can be retried: ${listed(notFailed.map((id) => `${id} is ${state.get(id)}`))} (nothing retried)`);
  } else {
    const r = await database.execute(
      `select j.id::text as id from ${JOBS_WITH_RUNS}
       where j.name = $1 and j.state = 'failed' and ($2::text is null or r.name = $2)`,
      [GRADE_QUEUE, q.run ?? null],
    );
    ids = r.rows.map((x) => String(x.id));
  }
  if (ids.length === 0) return { retried: 0 };
  // Archived ones are moved back to the queue first: one transaction, so a retry is whole or not at all.
  return { retried: await database.db.transaction((tx) => retryFailed(tx, boss, ids)) };
}
