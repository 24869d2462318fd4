import { createRoute, z } from '@hono/zod-openapi';
import { providerKeys } from '../../config.ts';
import { Fields } from '../../domain/fields.ts';
import { GRADE_STATUSES } from '../../domain/grades.ts';
import { NO_QUORUM_STATUS, PANEL_VOTES } from '../../domain/panel.ts';
import { ADHOC_RUN } from '../../services/grading/resolve.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../services/grading/grade-answer.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { errorResponses, notFoundResponse } from '../schemas.ts';

/**
 * POST /api/grades: grade one answer with one judge and store it (one grade per answer × judge; a
 * re-grade replaces it, and an unchanged one is served from the response cache at no cost). Judges are
 * named by id in judges/ only — never by a file path from a request.
 */


const GradeBody = z
  .object({
    answerId: Fields.rowId.optional().openapi({ description: 'A stored answer' }),
    answer: Fields.answerText.min(1, 'must not be empty').optional().openapi({ description: 'Or answer text (stored under `run`)' }),
    run: Fields.run.optional().openapi({ description: `Run for answer text (default "${ADHOC_RUN}", as \`assay grade\`)` }),
    model: Fields.model.optional().openapi({
      description: 'Model that wrote the answer text (a run is one model). Without it the answer names no model and the leaderboards leave it out',
    }),
    rubric: Fields.rubricId.optional().openapi({ description: "Stored rubric id (default: the answer's rubric)" }),
    rubricVersion: Fields.version.optional(),
    judge: Fields.judgeId.optional().openapi({ description: 'Judge id in judges/ (default: claude with ANTHROPIC_API_KEY, else gpt with OPENAI_API_KEY, else the lexical baseline: the judge the page footer names)' }),
    unverifiable: z.enum(['count', 'exclude']).optional(),
  })
  .strict()
  .refine((b) => (b.answerId === undefined) !== (b.answer === undefined), { message: 'give exactly one of answerId or answer' })
  .refine((b) => b.answerId === undefined || (b.run === undefined && b.model === undefined), { message: 'run and model name the run of answer text; a stored answer already has its run and model' })
  .openapi('GradeRequest');

const nullableShare = z.number().nullable();
/** PanelDetail (src/services/grading/panel-report.ts), every figure defined in docs/panels.md. */
const PanelReport = z
  .object({
    vote: z.enum(PANEL_VOTES),
    quorum: z.number().int(),
    samples: z.number().int(),
    okSamples: z.number().int(),
    members: z.array(z.object({ judge: z.string(), sample: z.number().int(), status: z.string(), completeness: nullableShare, correctness: nullableShare })),
    items: z.array(
      z.object({
        id: z.string(),
        verdict: z.string().nullable(),
        votes: z.object({ correct: z.number().int(), partial: z.number().int(), incorrect: z.number().int(), missing: z.number().int() }),
        agreement: nullableShare,
      }),
    ),
    agreement: z.object({ meanItemAgreement: nullableShare, pairwiseKappa: z.array(z.object({ a: z.string(), b: z.string(), kappa: nullableShare, reason: z.string().optional() })) }),
    itemOrders: z.array(z.object({ judge: z.string(), sample: z.number().int(), order: z.array(z.string()) })).nullable(),
    retryable: z.boolean(),
  })
  .openapi('PanelReport');

/** GradeDetail (src/services/grading/grade-detail.ts), field by field in docs/grades.md. */
const Grade = z
  .object({
    gradeId: z.number().int(),
    answerId: z.number().int(),
    status: z.enum([...GRADE_STATUSES, NO_QUORUM_STATUS]),
    completeness: z.number().nullable(),
    correctness: z.number().nullable(),
    f1: z.number().nullable(),
    items: z.array(
      z.object({
        id: z.string(),
        weight: z.number(),
        verdict: z.string(),
        evidence: z.string(),
        points: z.number(),
        confidence: z.number().min(0).max(1).nullable().openapi({ description: 'Probability of the verdict (docs/grades.md#confidence); null when the judge gives none' }),
        confidenceSource: z.enum(['logprob', 'vote']).nullable().openapi({ description: 'logprob: token log-probabilities; vote: a panel\'s vote share' }),
      }),
    ),
    claims: z.array(z.object({ text: z.string(), verdict: z.string() })),
    meta: z.record(z.string(), z.unknown()),
    usage: z.object({
      calls: z.number().int(),
      cached: z.boolean(),
      input: z.number().int(),
      output: z.number().int(),
      cacheRead: z.number().int(),
      cacheWrite: z.number().int(),
      costUsd: z.number().nullable(),
      latencyMs: z.number().int(),
    }),
    judge: z.object({ id: z.string(), provider: z.string(), model: z.string(), mode: z.string(), configHash: z.string(), baseline: z.boolean(), note: z.string().optional() }),
    rubric: z.object({ id: z.string(), version: z.number().int() }).nullable(),
    createdAt: z.string().openapi({ description: 'When the grade was written (ISO 8601)' }),
    panel: PanelReport.nullable().openapi({ description: "A panel judge's report (docs/panels.md); null for a plain judge" }),
  })
  .openapi('Grade');

export function registerGrades(api: Api): void {
  const { database, config } = api.deps;
  const keys = providerKeys(config);

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/grades',
      tags: ['grades'],
      summary: 'Grade one answer with a judge and store the grade; scores are null unless status is ok',
      request: { body: { required: true, content: { 'application/json': { schema: GradeBody } } } },
      responses: { 200: { description: 'The stored grade', content: { 'application/json': { schema: Grade } } }, ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      const g = await gradeAnswer(database, {
        judge: await openJudge(namedJudge(b.judge, keys, { from: 'network' }), keys),
        keys,
        ...(b.rubric ? { rubric: { slug: b.rubric, ...(b.rubricVersion ? { version: b.rubricVersion } : {}) } } : {}),
        answer: b.answerId !== undefined ? { id: b.answerId } : { text: b.answer!, ...(b.run ? { run: b.run } : {}), ...(b.model ? { model: b.model } : {}) },
        ...(b.unverifiable ? { unverifiable: b.unverifiable } : {}),
      });
      return c.json(g, 200);
    },
  });
}
