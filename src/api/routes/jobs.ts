import { createRoute, z } from '@hono/zod-openapi';
import { badInput } from '../../domain/errors.ts';
import { Fields } from '../../domain/fields.ts';
import { getRunProgress } from '../../services/grading/progress.ts';
import { findRun } from '../../services/grading/run-ref.ts';
import { gradingQueue } from '../../services/grading/queue.ts';
import { cancelRunGrading, enqueueRunGrading } from '../../services/grading/run-queue.ts';
import { JOB_STATES, listJobs, retryFailedJobs } from '../../services/jobs.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { JOBS_RETRY_EXAMPLE, RUN_GRADE_CANCEL_EXAMPLE, RUN_GRADE_EXAMPLE } from '../examples/request-examples.ts';
import { bodyResponses, errorResponses, ErrorSchema, notFoundResponse, queryLimit, unknownFilterResponse } from '../schemas.ts';

/**
 * Batch grading over HTTP: enqueue a run for a judge, watch its progress, list, retry and cancel jobs.
 * The server only enqueues; `assay worker` processes (on this machine or others sharing the database).
 * Judges are named by id in judges/ only — never by a file path from a request.
 */

const Id = Fields.judgeId;
const RunParam = z.object({ id: Fields.run.describe('Run id or name') });
/** Requests (tokens) per minute: a positive rate; stored as double precision. */
const Rate = z.number().positive().max(1e12);
/** A call takes a whole request from a bucket of at most rpm: under 1 no call could ever be sent. */
const Rpm = Rate.min(1);
const LIMIT_NOTE = "Stored for the judge's provider:model (all workers apply it): a number sets it, null clears it, absent keeps the stored value";

const Skipped = z
  .object({ task: z.number().int(), answerError: z.number().int(), noText: z.number().int(), noRubric: z.number().int() })
  .openapi('GradingSkipped', {
    description:
      'Answers of the run no judge grades, by reason (each counted once, in this order): task — a task graded without a judge (assemble, choice); answerError — an answer whose model call ended in error (status error), whatever text it kept; noText — no or blank text; noRubric — a describe answer that names no rubric',
  });

const Progress = z
  .object({
    run: z.object({ id: z.number().int(), name: z.string() }),
    judge: z.object({ id: z.number().int(), slug: z.string() }),
    status: z.string(),
    total: z.number().int().openapi({ description: 'Answers of the run a judge grades (describe and describe-then-solve answers with text and a rubric)' }),
    skipped: Skipped,
    done: z.number().int(),
    failed: z.number().int(),
    remaining: z.number().int(),
    jobs: z.object({ queued: z.number().int(), retrying: z.number().int(), active: z.number().int() }),
    ratePerSecond: z.number().nullable(),
    etaSeconds: z.number().nullable(),
    reason: z.string().nullable(),
    elapsedSeconds: z.number(),
    calls: z.number().int().openapi({ description: 'Provider calls in the usage ledger, settled or pending (a row is written before each call is sent)' }),
    inFlightCalls: z.number().int().openapi({ description: 'Pending calls of live workers' }),
    unsettled: z
      .object({ calls: z.number().int(), costUsd: z.number() })
      .openapi({ description: 'Calls sent by a worker that died before the reply: likely billed, never settled; costUsd is their estimate (included in costUsd)' }),
    tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() }),
    costUsd: z.number().openapi({ description: 'Cost of the priced calls of known usage (USD); the whole cost only when unpricedCalls and unknownCostCalls are 0' }),
    unpricedCalls: z.number().int().openapi({ description: 'Calls of a model with no price in judges/prices.yaml (cost null): left out of costUsd, so the cost is unknown' }),
    unknownCostCalls: z
      .number()
      .int()
      .openapi({ description: 'Calls sent whose tokens are unknown (a timeout, a lost connection, a reply without usage): most likely billed, left out of tokens and costUsd, which are then lower bounds' }),
  })
  .openapi('GradingProgress');

const Job = z
  .object({
    id: z.string(),
    state: z.enum(JOB_STATES),
    answerId: z.number().int(),
    gradingRunId: z.number().int(),
    run: z.string().nullable(),
    judge: z.string().nullable(),
    retryCount: z.number().int(),
    createdOn: z.string(),
    error: z.string().nullable(),
  })
  .openapi('GradingJob');

const Worker = z
  .object({ id: z.string(), host: z.string(), pid: z.number().int(), lastSeenSeconds: z.number(), alive: z.boolean(), jobs: z.number().int() })
  .openapi('GradingWorker', { description: 'A worker heartbeating the queue; one not alive has its jobs handed back' });

export function registerJobs(api: Api): void {
  const { database } = api.deps;
  // The composition root's queue, stopped with the server; an app built without one (tests) gets its
  // own, started only if one of these routes needs it. Maintenance is left to the workers.
  const queue = api.deps.queue ?? gradingQueue(database, { ...api.deps.config.jobs?.queue, supervise: false });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/runs/{id}/grade',
      operationId: 'enqueueRunGrading',
      tags: ['jobs'],
      summary: 'Enqueue one grading job per ungraded answer of the run (idempotent); workers grade them',
      request: {
        params: RunParam,
        body: { required: true, content: { 'application/json': { schema: z.object({ judge: Id, rpm: Rpm.nullable().optional().openapi({ description: LIMIT_NOTE }), tpm: Rate.nullable().optional().openapi({ description: LIMIT_NOTE }) }).strict(), example: RUN_GRADE_EXAMPLE } } },
      },
      responses: {
        202: {
          description: 'Enqueued',
          content: {
            'application/json': {
              schema: z.object({
                gradingRunId: z.number().int(),
                total: z.number().int(),
                skipped: Skipped,
                alreadyGraded: z.number().int(),
                jobs: z.number().int(),
                resumed: z.number().int(),
                retried: z.number().int(),
              }).openapi('GradingEnqueued'),
            },
          },
        },
        ...errorResponses,
        ...notFoundResponse,
        ...bodyResponses,
      },
    }),
    handler: async (c) => {
      const { id } = c.req.valid('param');
      const b = c.req.valid('json');
      // Only the limits given change (null clears one): a limit left out keeps the stored value.
      const limits = { ...(b.rpm !== undefined ? { rpm: b.rpm } : {}), ...(b.tpm !== undefined ? { tpm: b.tpm } : {}) };
      const r = await enqueueRunGrading(database, queue, { run: id, judge: b.judge, from: 'network', limits });
      return c.json({ gradingRunId: r.gradingRunId, total: r.total, skipped: r.skipped, alreadyGraded: r.alreadyGraded, jobs: r.jobs, resumed: r.resumed, retried: r.retried }, 202);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/runs/{id}/progress',
      operationId: 'getRunProgress',
      tags: ['jobs'],
      summary: 'Done, failed and remaining answers, rate, ETA, tokens and cost of grading a run with a judge',
      request: { params: RunParam, query: z.object({ judge: Id.optional().openapi({ description: 'Needed when several judges grade the run' }) }) },
      responses: { 200: { description: 'Progress', content: { 'application/json': { schema: Progress } } }, ...errorResponses, 404: { description: 'No such run, or `judge` names no judge', content: { 'application/json': { schema: ErrorSchema } } } },
    }),
    handler: async (c) => {
      const { id } = c.req.valid('param');
      const { judge } = c.req.valid('query');
      // An unknown judge is 404 (before: 400 "not enqueued", as for a judge that never graded the run); the run first.
      await findRun(database, id);
      await requireNamed(database, { judge }, { judge: 'judge' });
      return c.json(await getRunProgress(database, id, judge), 200);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/jobs',
      operationId: 'listJobs',
      tags: ['jobs'],
      summary: 'Grading jobs: counts by state and the jobs (failed ones with their last error)',
      request: { query: z.object({ state: z.enum(JOB_STATES).optional(), run: Fields.run.optional(), limit: queryLimit(100) }) },
      responses: {
        200: { description: 'Jobs', content: { 'application/json': { schema: z.object({ counts: z.record(z.string(), z.number().int()), jobs: z.array(Job), workers: z.array(Worker), unsettledCalls: z.number().int().openapi({ description: 'Pending ledger rows whose worker is dead: calls sent, likely billed, never settled' }) }).openapi('GradingJobs') } } },
        ...errorResponses,
        ...unknownFilterResponse,
      },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { run: 'run' });
      return c.json(await listJobs(database, { limit: q.limit, ...(q.state ? { state: q.state } : {}), ...(q.run ? { run: q.run } : {}) }), 200);
    },
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/jobs/retry',
      operationId: 'retryJobs',
      tags: ['jobs'],
      summary: 'Re-run failed (dead-lettered) grading jobs, by id or all of a run',
      request: { body: { required: true, content: { 'application/json': { schema: z.object({ ids: z.array(z.uuid()).min(1).max(10_000).optional(), run: Fields.run.optional() }).strict(), example: JOBS_RETRY_EXAMPLE } } } },
      responses: {
        200: { description: 'Retried', content: { 'application/json': { schema: z.object({ retried: z.number().int() }).openapi('JobsRetried') } } },
        ...errorResponses,
        404: { description: 'No such run, or an id that is no grading job; nothing retried', content: { 'application/json': { schema: ErrorSchema } } },
        409: { description: 'A named job is not failed (the message gives its state); nothing retried', content: { 'application/json': { schema: ErrorSchema } } },
        ...bodyResponses,
      },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      if (!b.ids?.length && !b.run) throw badInput('give ids or run');
      return c.json(await retryFailedJobs(database, queue, { ...(b.ids ? { ids: b.ids } : {}), ...(b.run ? { run: b.run } : {}) }), 200);
    },
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/runs/{id}/grade/cancel',
      operationId: 'cancelRunGrading',
      tags: ['jobs'],
      summary: "Cancel the run's waiting grading jobs (in-flight ones finish); enqueueing again resumes",
      request: { params: RunParam, body: { required: false, content: { 'application/json': { schema: z.object({ judge: Id.optional() }).strict(), example: RUN_GRADE_CANCEL_EXAMPLE } } } },
      responses: { 200: { description: 'Cancelled', content: { 'application/json': { schema: z.object({ cancelled: z.number().int() }).openapi('GradingCancelled') } } }, ...errorResponses, ...notFoundResponse, ...bodyResponses },
    }),
    handler: async (c) => {
      const { id } = c.req.valid('param');
      const b = (c.req.valid('json') ?? {}) as { judge?: string };
      return c.json(await cancelRunGrading(database, queue, { run: id, from: 'network', ...(b.judge ? { judge: b.judge } : {}) }), 200);
    },
  });
}
