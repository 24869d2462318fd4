import { createRoute, z } from '@hono/zod-openapi';
import { ITEM_VERDICTS } from '../../domain/verdicts.ts';
import { DROP_REASONS } from '../../analysis/judge-compare/units.ts';
import { JUDGE_COMPARE_DEFAULTS, JUDGE_COMPARE_LIMITS, judgeCompare } from '../../services/judge-compare.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { errorResponses, queryNumber, querySeed, unknownFilterResponse } from '../schemas.ts';

/**
 * GET /api/reports/judge-compare: `assay judge compare` over HTTP; the response is validated against its
 * schema. Read-only (no --grade here: grading through the API is POST /api/runs/{id}/grade), so the
 * response says how many answers each judge left ungraded.
 */

const Name = z.string().min(1).max(200);
const Query = z.object({
  run: Name.openapi({ description: 'Run name or id' }),
  a: Name.openapi({ description: 'Judge A (slug): the baseline' }),
  b: Name.openapi({ description: 'Judge B (slug): the candidate' }),
  // Blank is not given, so the default (schemas.ts queryNumber): z.coerce read '' as 0 answers and seed 0.
  top: queryNumber(z.number().int().min(0).max(JUDGE_COMPARE_LIMITS.top), JUDGE_COMPARE_DEFAULTS.top).openapi({ description: 'Answers listed by F1 move' }),
  seed: querySeed(JUDGE_COMPARE_DEFAULTS.seed).openapi({ description: 'Bootstrap seed' }),
  resamples: queryNumber(z.number().int().min(1).max(JUDGE_COMPARE_LIMITS.resamples), JUDGE_COMPARE_DEFAULTS.resamples),
});

const Ci = z.tuple([z.number(), z.number()]).nullable();
const Kappa = z.object({ kappa: z.number().nullable(), ci: Ci, reason: z.string().optional() }).strict();
const Agreement = z.object({ judge: z.string(), agreement: z.number().nullable(), kappa: Kappa, weightedKappa: Kappa }).strict();
const Difference = z.object({ estimate: z.number().nullable(), ci: Ci, resamples: z.number().int(), reason: z.string().optional() }).strict();
const Counts = { units: z.number().int(), flips: z.number().int(), towardHuman: z.number().int(), awayFromHuman: z.number().int(), neither: z.number().int() };
const Verdict = z.enum(ITEM_VERDICTS);

export const JudgeCompareSchema = z
  .object({
    run: z.string(),
    judgeA: z.string(),
    judgeB: z.string(),
    units: z.number().int(),
    answers: z.number().int(),
    humanLabelledPairs: z.number().int(),
    dropped: z.object({
      total: z.number().int(),
      byReason: z.array(z.object({ reason: z.enum(DROP_REASONS), count: z.number().int(), description: z.string() }).strict()),
    }).strict(),
    a: Agreement,
    b: Agreement,
    difference: z.object({ kappa: Difference, weightedKappa: Difference }).strict(),
    bootstrap: z.object({ seed: z.number().int(), resamples: z.number().int(), confidence: z.number(), unit: z.literal('answer') }).strict(),
    flips: z.object({
      ...Counts,
      items: z.array(z.object({ rubric: z.string().nullable().openapi({ description: "The item's rubric (id): rubrics share item ids, so a row is one (rubric, item)" }), item: z.string(), ...Counts, transitions: z.array(z.object({ from: Verdict, to: Verdict, count: z.number().int() }).strict()) }).strict()),
    }).strict(),
    f1Moves: z.object({
      graded: z.number().int(),
      top: z.array(z.object({ answer: z.string(), f1A: z.number(), f1B: z.number(), delta: z.number(), humanLabelled: z.boolean() }).strict()),
    }).strict(),
    ungraded: z
      .object({ a: z.number().int(), b: z.number().int() })
      .strict()
      .openapi({ description: "Per judge, the run's answers a judge grades that have no final grade from it: left out of the comparison (this route grades nothing; POST /api/runs/{id}/grade does)" }),
    excludedExamples: z.number().int().openapi({ description: 'Answers of the run either judge was shown as examples (anchored judges, docs/judges.md): left out of the comparison' }),
    notes: z.array(z.string()).openapi({
      description: "Labels and grades left out because their rubric version words the item otherwise than the newest version given for the unit, and labels of unknown version kept unchecked, as the calibration report's notes say",
    }),
  })
  .strict()
  .openapi('JudgeCompare');

export function registerJudgeCompareReport(api: Api): void {
  const { database } = api.deps;
  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/reports/judge-compare',
      operationId: 'getJudgeCompareReport',
      tags: ['reports'],
      summary: "Two judges' stored grades of a run against its human labels: kappas, paired bootstrap of B − A, verdict flips, F1 moves",
      request: { query: Query },
      responses: { 200: { description: 'The comparison', content: { 'application/json': { schema: JudgeCompareSchema } } }, ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      // An unknown judge is 404 (before: 400 "has no grades for run", as for a judge that never graded it).
      await requireNamed(database, q, { run: 'runRef', a: 'judge', b: 'judge' });
      return c.json(JudgeCompareSchema.parse(await judgeCompare(database, q)), 200);
    },
  });
}
