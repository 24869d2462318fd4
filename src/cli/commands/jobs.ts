import type { Command } from '../command.ts';
import { badInput } from '../../domain/errors.ts';
import { withDatabase } from '../database.ts';
import { numberFlag, requireFlag } from '../io.ts';
import { table } from '../table.ts';

/** `assay jobs`: the grading queue — counts by state, jobs (failed ones with their last error), retry, cancel. */

type Queue = import('../../services/grading/queue.ts').GradingQueue;

/** The database and the grading queue for one command (pg-boss started only if the command needs it). */
async function withQueue<T>(f: (database: import('../../db/client.ts').Database, queue: Queue) => Promise<T>): Promise<T> {
  const { withGradingQueue } = await import('../../services/grading/queue.ts');
  return withDatabase((database, config) => withGradingQueue(database, { ...config.jobs.queue, supervise: false }, (queue) => f(database, queue)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Job ids as `assay jobs` prints them (uuids); anything else is bad input before the database is opened. */
function jobIds(values: Record<string, unknown>): string[] {
  const ids = (values.id as string[] | undefined) ?? [];
  for (const id of ids) if (!UUID.test(id)) throw badInput(`--id must be a job id as \`assay jobs\` prints it (a uuid), got '${id.length > 60 ? `${id.slice(0, 60)}…` : id}'`);
  return ids;
}

/** A --run that names no run is bad input, not an empty list ("0 jobs" would read as "nothing to do"). */
async function checkRun(database: import('../../db/client.ts').Database, run: unknown): Promise<void> {
  if (typeof run !== 'string') return;
  const { findRun } = await import('../../services/grading/run-ref.ts');
  await findRun(database, run);
}

const list: Command = {
  path: ['jobs'],
  summary: 'List grading jobs: counts by state and the jobs themselves (failed ones with their error)',
  usage: '[--run NAME] [--state created|retry|active|completed|cancelled|failed] [--limit N]',
  options: { run: { type: 'string' }, state: { type: 'string' }, limit: { type: 'string' } },
  async run({ values }) {
    const { JOB_STATES, listJobs } = await import('../../services/jobs.ts');
    const state = typeof values.state === 'string' ? values.state : undefined;
    if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) throw badInput(`--state must be one of ${JOB_STATES.join(', ')}`);
    const limit = numberFlag(values, 'limit', { integer: true, min: 1, max: 100_000 }) ?? 50;
    const r = await withQueue(async (database) => {
      await checkRun(database, values.run);
      return listJobs(database, { ...(typeof values.run === 'string' ? { run: values.run } : {}), ...(state ? { state: state as (typeof JOB_STATES)[number] } : {}), limit });
    });
    const counts = Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ');
    const rows = r.jobs.map((j) => [j.id, j.state, j.run, j.judge, j.answerId, j.retryCount, j.error ?? '']);
    const workers = r.workers.map((w) => `${w.host}:${w.pid} ${w.alive ? 'alive' : 'dead'} (seen ${w.lastSeenSeconds} s ago, ${w.jobs} jobs)`).join(', ');
    // Calls a dead worker sent and never settled: billed, figures unknown (their estimate is in the cost).
    const unsettled = r.unsettledCalls ? `\n${r.unsettledCalls} unsettled provider call${r.unsettledCalls === 1 ? '' : 's'} (sent by a worker that died before the reply)` : '';
    return { json: r, text: `${counts}\nworkers: ${workers || 'none'}${unsettled}\n\n${rows.length ? table(['job', 'state', 'run', 'judge', 'answer', 'retries', 'error'], rows) : '(no jobs)'}` };
  },
};

const retry: Command = {
  path: ['jobs', 'retry'],
  summary: 'Re-run failed (dead-lettered) grading jobs: all of a run, or by job id',
  usage: '[--run NAME] [--id JOB_ID ...]',
  options: { run: { type: 'string' }, id: { type: 'string', multiple: true } },
  async run({ values }) {
    const { retryFailedJobs } = await import('../../services/jobs.ts');
    const ids = jobIds(values);
    if (ids.length > 0 && values.run !== undefined) throw badInput('give --run or --id, not both (ids name jobs of any run)');
    // The service checks the run and every named id (all or nothing).
    const r = await withQueue((database, queue) => retryFailedJobs(database, queue, { ids, ...(typeof values.run === 'string' ? { run: values.run } : {}) }));
    return { json: r, text: `${r.retried} failed job${r.retried === 1 ? '' : 's'} queued again; a worker (or \`assay run\`) will take them` };
  },
};

const cancel: Command = {
  path: ['jobs', 'cancel'],
  summary: "Cancel a run's waiting grading jobs (in-flight ones finish); `assay run` again resumes",
  usage: '--run NAME [--judge ID|FILE]',
  options: { run: { type: 'string' }, judge: { type: 'string' } },
  async run({ values }) {
    const runRef = requireFlag(values, 'run');
    // A bad judge reference or file is refused before the database is opened.
    const { cancelRunGrading, checkJudgeRef } = await import('../../services/grading/run-queue.ts');
    if (typeof values.judge === 'string') checkJudgeRef(values.judge);
    const r = await withQueue((database, queue) => cancelRunGrading(database, queue, { run: runRef, ...(typeof values.judge === 'string' ? { judge: values.judge } : {}) }));
    return { json: r, text: `${r.cancelled} waiting job${r.cancelled === 1 ? '' : 's'} cancelled` };
  },
};

export default [list, retry, cancel];
