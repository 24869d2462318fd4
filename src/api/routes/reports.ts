import { createRoute, z } from '@hono/zod-openapi';
import { LABEL_SCALES } from '../../domain/labels.ts';
import {
  ablationTable,
  calibrationReport,
  describeThenSolveReport,
  DTS_DEFAULT_THRESHOLD,
  DTS_METRICS,
  effortTable,
  flattenDts,
  leaderboard,
  orientationTable,
} from '../../services/reports.ts';
import { respondRows } from '../csv.ts';
import { UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed, type FilterKind } from '../../services/filter-values.ts';
import { CalibrationReportSchema, ExcludedExamplesField, HumansField } from '../calibration-schema.ts';
import { DtsResultSchema } from '../dts-schema.ts';
import { LeaderboardSchema } from '../leaderboard-schema.ts';
import { AblationReportSchema, EffortReportSchema, OrientationReportSchema, policyInfo } from '../report-schema.ts';
import { errorResponses, jsonOrCsvResponse, jsonResponse, queryNumber, querySeed, unknownFilterResponse } from '../schemas.ts';
import { registerJudgeCompareReport } from './judge-compare-report.ts';

/** Reports over stored data. Table reports answer CSV too (Accept: text/csv). */

const Name = z.string().min(1).max(200);
const Filters = z.object({
  run: Name.optional(),
  model: Name.optional(),
  rubric: Name.optional(),
  judge: Name.optional().openapi({ description: 'Judge slug (default: the judge with the most ok grades)' }),
});
const Seeded = Filters.extend({ seed: querySeed(1).openapi({ description: 'Bootstrap seed (default 1)' }) });
/** The reports of description F1 read every grade under one unverifiable-claims policy (services/report-policy.ts). */
const Policy = {
  unverifiable: z.enum(UNVERIFIABLE_POLICIES).optional().openapi({
    description: 'Unverifiable-claims policy of description F1 (default count, the grading default): grades are rescored from their stored claims; one that cannot be (a panel grade) counts only under its own policy, and unverifiableNote says how many are left out',
  }),
};
const F1Seeded = Seeded.extend(Policy);
/** τ, from −1 to 1 (proximity can be negative); blank is not given (schemas.ts queryNumber). */
const tau = (fallback?: number) => queryNumber(z.number().min(-1).max(1), fallback);
const StoredCalibrationSchema = CalibrationReportSchema.extend({
  judgeNotes: z.record(z.string(), z.string()).openapi({ description: 'Judges of the report that are the lexical baseline, by slug, with the note to show beside them' }),
  setAside: z.number().int().openapi({ description: 'Stored labels of another scale than the one read, and claim marks, set aside (also said in notes); the /calibration page counts the same' }),
  excludedExamples: ExcludedExamplesField,
  ...policyInfo,
}).openapi('StoredCalibrationReport');

export function registerReports(api: Api): void {
  const { database } = api.deps;
  /** A report route: `body` is the JSON document; the table reports answer their rows as CSV too (Accept: text/csv). */
  const tableRoute = (path: string, operationId: string, summary: string, query: z.ZodObject, body: ReturnType<typeof jsonResponse>) =>
    createRoute({ method: 'get', path, operationId, tags: ['reports'], summary, request: { query }, responses: { 200: body, ...errorResponses, ...unknownFilterResponse } });
  const rows = (schema: z.ZodType) => jsonOrCsvResponse('The report (or its rows as CSV)', schema);
  /** A report's filters must name something (filter-values.ts): an unknown run would report nothing as if measured. */
  const FILTERS: Record<string, FilterKind> = { run: 'run', model: 'model', rubric: 'rubric', judge: 'judge' };
  const named = <T extends Record<string, unknown>>(q: T, more: Record<string, FilterKind> = {}): Promise<T> => requireNamed(database, q, { ...FILTERS, ...more }).then(() => q);

  defineRoute(api, {
    scope: 'read',
    route: tableRoute(
      '/api/reports/leaderboard',
      'getLeaderboard',
      'Per model × size bucket: mean description F1, neighbour, direct, proximity with 95% bootstrap intervals; random-baseline rows',
      F1Seeded,
      rows(LeaderboardSchema),
    ),
    handler: async (c) => {
      const q = await named(c.req.valid('query') as z.infer<typeof F1Seeded>);
      return respondRows(c, await leaderboard(database, q, { seed: q.seed }), LeaderboardSchema);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: tableRoute('/api/reports/orientation', 'getOrientationReport', 'Per model: correct landscape / portrait orientation counts, accuracy with a Wilson interval', Filters, rows(OrientationReportSchema)),
    handler: async (c) => respondRows(c, await orientationTable(database, await named(c.req.valid('query') as z.infer<typeof Filters>)), OrientationReportSchema),
  });

  const AblationQuery = F1Seeded.extend({ tag: Name.default('tagged').openapi({ description: 'Condition tag compared against runs without it' }) });
  defineRoute(api, {
    scope: 'read',
    route: tableRoute('/api/reports/ablation', 'getAblationReport', 'Condition ablation (e.g. tagged vs plain): F1 and piece-count error per model', AblationQuery, rows(AblationReportSchema)),
    handler: async (c) => {
      // The tag only when asked: the default 'tagged' compares against no run where none carries it, as before.
      const q = await named(c.req.valid('query') as z.infer<typeof AblationQuery>, c.req.query('tag') === undefined ? {} : { tag: 'tag' });
      return respondRows(c, await ablationTable(database, q, { seed: q.seed }), AblationReportSchema);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: tableRoute('/api/reports/effort', 'getEffortReport', 'Per model × effort level: scores, median output tokens, missing answers', F1Seeded, rows(EffortReportSchema)),
    handler: async (c) => {
      const q = await named(c.req.valid('query') as z.infer<typeof F1Seeded>);
      return respondRows(c, await effortTable(database, q, { seed: q.seed }), EffortReportSchema);
    },
  });

  // The numeric scale reads the judges' F1 under the policy, as the other F1 reports do.
  const CalibrationQuery = F1Seeded.extend({ scale: z.enum(LABEL_SCALES).default('verdict'), humans: HumansField.default('each') });
  defineRoute(api, {
    scope: 'read',
    route: tableRoute(
      '/api/reports/calibration',
      'getCalibrationReport',
      'Judge calibration against stored human labels (agreement, kappa, confusion, alpha)',
      CalibrationQuery,
      jsonResponse('The `assay calibrate --json` report over stored labels, with the lexical-baseline notes of its judges', StoredCalibrationSchema),
    ),
    handler: async (c) => c.json(await calibrationReport(database, await named(c.req.valid('query') as z.infer<typeof CalibrationQuery>)), 200),
  });

  const DtsQuery = Filters.extend({
    ...Policy,
    perception: z.enum(['f1', 'label']).default('f1'),
    metric: z.enum(DTS_METRICS).default('neighbour'),
    threshold: tau(DTS_DEFAULT_THRESHOLD).openapi({ description: 'τ for both sides (score ≥ τ is ok)' }),
    perceptionThreshold: tau(),
    answerThreshold: tau(),
  });
  defineRoute(api, {
    scope: 'read',
    route: tableRoute('/api/reports/describe-then-solve', 'getDescribeThenSolveReport', 'P(A✓|P✓), P(A✓|P✗), P(P✓), P(A✓) with Wilson intervals, per model and size bucket', DtsQuery, rows(DtsResultSchema)),
    handler: async (c) => {
      const r = await describeThenSolveReport(database, await named(c.req.valid('query') as z.infer<typeof DtsQuery>));
      // The schema names the CSV's columns when there are no rows: a header line, not an empty file.
      return respondRows(c, { ...r, rows: flattenDts(r.report) }, DtsResultSchema);
    },
  });

  registerJudgeCompareReport(api);
}
