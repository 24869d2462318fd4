import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { badInput, notFound } from '../../domain/errors.ts';
import { USAGE_UNKNOWN_REASONS } from '../../judges/types.ts';
import { GRADE_JOBS } from '../../jobs/archive.ts';
import { GRADE_QUEUE } from '../../jobs/boss.ts';
import { LIVE } from '../../jobs/leases.ts';
import { hasFinalGrade, isGraded, runSelection, type SkippedCounts, sqlText } from './needs-grading.ts';
import { findRun } from './run-ref.ts';
import type { RunAndJudge } from './run-queue.ts';

/**
 * Progress of a run × judge, from the database alone (so any process — the CLI bar, GET
 * /runs/{id}/progress, another machine — sees the same numbers):
 * - total: answers of the run a judge grades (needs-grading.ts); skipped: the others, by reason;
 * - done: those with a final grade from the judge (any status but provider_error);
 * - failed: answers whose job ran out of retries (dead-lettered) without a final grade;
 * - remaining: total − done − failed (queued, retrying or in flight);
 * - rate: grades written in the last 30 s (or since the start, if sooner) per second; eta = remaining / rate;
 * - tokens and cost: every provider call the judge made for the run's answers (usage ledger), settled
 *   or not: a call's row is written (pending, with an over-estimate) before it is sent;
 * - unsettled: pending calls whose worker is dead — sent, likely billed, never settled — with their
 *   estimated cost (included in costUsd, so the cost never under-counts); inFlightCalls: pending calls
 *   of live workers;
 * - unpricedCalls: calls of a model judges/prices.yaml has no price for (cost_usd null): costUsd sums
 *   the priced calls only, so with any of these the run's cost is unknown, not costUsd.
 * - unknownCostCalls: calls sent whose tokens nobody knows (a timeout, a lost connection, a reply without
 *   usage; judge-store.ts ledgerStatus): most likely billed, so tokens and costUsd leave them out and are
 *   a lower bound whenever this is not 0 (docs/data-safety.md, "Calls of unknown cost").
 */

export interface Progress extends RunAndJudge {
  status: string;
  total: number;
  /** Answers of the run no judge grades, by reason (not in total): see needs-grading.ts. */
  skipped: SkippedCounts;
  done: number;
  failed: number;
  remaining: number;
  jobs: { queued: number; retrying: number; active: number };
  ratePerSecond: number | null;
  etaSeconds: number | null;
  reason: string | null;
  elapsedSeconds: number;
  calls: number;
  inFlightCalls: number;
  unsettled: { calls: number; costUsd: number };
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** The priced calls' cost: the run's whole cost only when unpricedCalls is 0. */
  costUsd: number;
  /** Calls with no known price (their model is not in judges/prices.yaml), left out of costUsd. */
  unpricedCalls: number;
  /** Calls sent whose usage is unknown (timeout, lost connection, no usage in the reply): left out of tokens and costUsd, which are then lower bounds. */
  unknownCostCalls: number;
}

/** A pending row of no worker (an interactive grade) is taken as unsettled after this long. */
const ORPHAN_PENDING_S = 600;

/**
 * SQL condition on a usage_ledger row `l`: pending, and its worker is gone (no row, or not seen within
 * its dead-after time) or, for a row of no worker, older than ORPHAN_PENDING_S.
 */
export const UNSETTLED = `l.status = 'pending' and case when l.worker_id is null then l.created_at < now() - make_interval(secs => ${ORPHAN_PENDING_S})
  else not exists (select 1 from workers w where w.id = l.worker_id and ${LIVE}) end`;

/** SQL condition on a usage_ledger row `l`: a call of unknown usage (`<outcome>:<reason>`, judge-store.ts ledgerStatus). */
export const USAGE_UNKNOWN = `l.status ~ ':(${USAGE_UNKNOWN_REASONS.join('|')})$'`;

const RATE_WINDOW_S = 30;

// The rule's SQL, rendered once into the text statements below (grading_runs gr in scope).
const GRADED_ANSWERS = `from answers where "answers"."run_id" = gr.run_id and ${sqlText(isGraded)}`;
const DONE = `(select count(*)::int ${GRADED_ANSWERS} and ${sqlText(hasFinalGrade(sql.raw('gr.judge_id')))})`;
const RECENT = `(select count(*)::int ${GRADED_ANSWERS} and ${sqlText(
  hasFinalGrade(sql.raw('gr.judge_id'), { writtenAfter: sql.raw('now() - make_interval(secs => least($2::float8, greatest(extract(epoch from now() - gr.updated_at), 0.001)))') }),
)})`;
const FINAL_BY_JOB_JUDGE = sqlText(hasFinalGrade(sql.raw('$3::int')));

/** The usage part of a progress report: what the ledger holds for a run's answers under a judges row. */
export type RunUsage = Pick<Progress, 'calls' | 'inFlightCalls' | 'unsettled' | 'tokens' | 'costUsd' | 'unpricedCalls' | 'unknownCostCalls'>;

/**
 * Calls, tokens and cost of a run × judges row from the usage ledger (settled or not): the queue's
 * progress and `assay run --batch`'s summary both report these numbers (one query).
 */
export async function runUsage(database: Database, judgeId: number, runId: number): Promise<RunUsage> {
  const usage = await database.execute(
    // A row of unknown usage holds an estimate, not figures: its tokens are left out like its (null) cost.
    `select count(*)::int as calls, coalesce(sum(input_tokens) filter (where not ${USAGE_UNKNOWN}), 0)::float8 as input,
       coalesce(sum(output_tokens) filter (where not ${USAGE_UNKNOWN}), 0)::float8 as output,
       coalesce(sum(cache_read_tokens) filter (where not ${USAGE_UNKNOWN}), 0)::float8 as cache_read,
       coalesce(sum(cache_write_tokens) filter (where not ${USAGE_UNKNOWN}), 0)::float8 as cache_write, coalesce(sum(cost_usd), 0)::float8 as cost,
       count(*) filter (where l.status = 'pending')::int as pending, count(*) filter (where l.cost_usd is null and not ${USAGE_UNKNOWN})::int as unpriced,
       count(*) filter (where ${USAGE_UNKNOWN})::int as unknown_cost,
       count(*) filter (where ${UNSETTLED})::int as unsettled,
       coalesce(sum(cost_usd) filter (where ${UNSETTLED}), 0)::float8 as unsettled_cost
     from usage_ledger l where l.judge_id = $1 and l.answer_id in (select id from answers where run_id = $2)`,
    [judgeId, runId],
  );
  const u = usage.rows[0] ?? {};
  return {
    calls: Number(u.calls ?? 0),
    inFlightCalls: Number(u.pending ?? 0) - Number(u.unsettled ?? 0),
    unsettled: { calls: Number(u.unsettled ?? 0), costUsd: Number(Number(u.unsettled_cost ?? 0).toFixed(6)) },
    tokens: { input: Number(u.input ?? 0), output: Number(u.output ?? 0), cacheRead: Number(u.cache_read ?? 0), cacheWrite: Number(u.cache_write ?? 0) },
    costUsd: Number(Number(u.cost ?? 0).toFixed(6)),
    unpricedCalls: Number(u.unpriced ?? 0),
    unknownCostCalls: Number(u.unknown_cost ?? 0),
  };
}

export async function getProgress(database: Database, gradingRunId: number): Promise<Progress> {
  const head = await database.execute(
    `select gr.id, gr.status, gr.run_id, r.name as run_name, gr.judge_id, j.slug, extract(epoch from now() - gr.updated_at)::float8 as elapsed,
       ${DONE} as done, ${RECENT} as recent
     from grading_runs gr join runs r on r.id = gr.run_id join judges j on j.id = gr.judge_id where gr.id = $1`,
    [gradingRunId, RATE_WINDOW_S],
  );
  const h = head.rows[0];
  if (!h) throw notFound(`grading run ${gradingRunId} not found`);
  // GRADE_JOBS: the queue's jobs and the failed ones it archived that no job of the same id shadows.
  const jobs = await database.execute(
    `select state::text as state, count(*)::int as n,
       count(distinct j.data->>'answerId') filter (where state = 'failed' and not exists (
         select 1 from answers where "answers"."id" = (j.data->>'answerId')::int and ${FINAL_BY_JOB_JUDGE}))::int as dead
     from ${GRADE_JOBS} j where j.name = $1 and (j.data->>'gradingRunId')::int = $2
     group by state`,
    [GRADE_QUEUE, gradingRunId, h.judge_id],
  );
  const count = (s: string) => Number(jobs.rows.find((r) => r.state === s)?.n ?? 0);
  const failed = jobs.rows.reduce((n, r) => n + Number(r.dead ?? 0), 0);
  const usage = await runUsage(database, Number(h.judge_id), Number(h.run_id));
  const { total, skipped } = await runSelection(database.db, Number(h.run_id));
  const done = Number(h.done);
  const remaining = Math.max(0, total - done - failed);
  const elapsed = Number(h.elapsed);
  const window = Math.min(RATE_WINDOW_S, Math.max(elapsed, 0.001));
  const recent = Number(h.recent);
  const rate = recent > 0 ? recent / window : null;
  let reason: string | null = null;
  if (remaining === 0) reason = 'nothing remaining';
  else if (rate === null) reason = `no grade written in the last ${Math.round(window)} s`;
  return {
    run: { id: Number(h.run_id), name: String(h.run_name) },
    judge: { id: Number(h.judge_id), slug: String(h.slug) },
    status: String(h.status),
    total,
    skipped,
    done,
    failed,
    remaining,
    jobs: { queued: count('created'), retrying: count('retry'), active: count('active') },
    ratePerSecond: rate === null ? null : Number(rate.toFixed(3)),
    etaSeconds: rate === null || remaining === 0 ? (remaining === 0 ? 0 : null) : Math.round(remaining / rate),
    reason,
    elapsedSeconds: Math.round(elapsed),
    ...usage,
  };
}

/**
 * Progress of a run (id or name) graded with one judge; the judge may be left out when only one grades it.
 * A judge id has a grading run per configuration (its file edited between runs: a new config hash, a new
 * judges row): the latest enqueued is the judge's progress, as `assay run` of the file as it is now.
 */
export async function getRunProgress(database: Database, runRef: string | number, judgeSlug?: string): Promise<Progress> {
  const run = await findRun(database, runRef);
  const r = await database.execute(
    `select gr.id, j.slug from grading_runs gr join judges j on j.id = gr.judge_id where gr.run_id = $1 and ($2::text is null or j.slug = $2)
     order by gr.updated_at desc, gr.id desc`,
    [run.id, judgeSlug ?? null],
  );
  if (r.rows.length === 0) throw badInput(`run '${run.name}': not enqueued for grading${judgeSlug ? ` by judge '${judgeSlug}'` : ''}`);
  if (new Set(r.rows.map((x) => x.slug)).size > 1) throw badInput(`run '${run.name}': graded by several judges; name one with ?judge=`);
  return getProgress(database, Number(r.rows[0].id));
}
