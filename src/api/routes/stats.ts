import { createRoute, z } from '@hono/zod-openapi';
import { computeStatistic, type StatInputs, type StatName } from '../../services/statistics.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { STATS_EXAMPLES } from '../examples/stats-examples.ts';
import { badInputResponse, bodyResponses, errorResponses } from '../schemas.ts';

/**
 * POST /api/stats/{kappa,fleiss,alpha,wilson,corr,icc,mcnemar}: the statistics of `assay stats` on data
 * in the body, no import needed. Inputs and outputs are those of the CLI (`--json`); docs/http-api.md.
 * The examples of the document are docs/statistics.md's (src/api/examples/stats-examples.ts).
 */

const Cell = z.union([z.string(), z.number(), z.null()]).openapi('StatCell');
const List = z.array(Cell).openapi({ description: 'One value per item (string, number, or null for missing)' });
const Matrix = z.array(z.array(Cell)).openapi({ description: 'Rows of equal length' });
const confidence = z.number().optional().openapi({ description: 'Interval confidence, strictly between 0 and 1 (default 0.95)' });
const interval = z.tuple([z.number(), z.number()]).nullable();
const nullableNumber = z.number().nullable();
const common = { reason: z.string().optional(), warnings: z.array(z.string()).optional() };

const BODIES = {
  kappa: z
    .object({ a: List, b: List, categories: List.optional(), weights: z.enum(['none', 'linear', 'quadratic']).optional(), method: z.enum(['cohen', 'scott', 'gwet']).optional(), confidence })
    .strict(),
  fleiss: z.object({ data: Matrix.openapi({ description: 'Subjects × categories counts; with raw, subjects × raters labels' }), raw: z.boolean().optional(), categories: List.optional() }).strict(),
  alpha: z.object({ data: Matrix.openapi({ description: 'Raters × units (null = missing)' }), level: z.enum(['nominal', 'ordinal', 'interval', 'ratio']), order: List.optional() }).strict(),
  wilson: z.object({ successes: z.number().int().min(0), trials: z.number().int().min(0), confidence }).strict(),
  corr: z.object({ x: List, y: List, method: z.enum(['pearson', 'spearman', 'kendall']).optional(), confidence }).strict(),
  icc: z.object({ data: Matrix.openapi({ description: 'Subjects × raters ratings' }), confidence }).strict(),
  mcnemar: z.object({ b: z.number().int().min(0), c: z.number().int().min(0), exact: z.boolean().optional(), correction: z.boolean().optional() }).strict(),
} satisfies Record<StatName, z.ZodType>;

const IccForm = z.object({ value: nullableNumber, ci: interval, F: nullableNumber, p: nullableNumber, df1: z.number(), df2: z.number() });
const RESULTS = {
  kappa: z.object({ kappa: nullableNumber, se: nullableNumber, ci: interval, agreement: nullableNumber, n: z.number().int(), categories: z.array(z.union([z.string(), z.number()])), method: z.string(), weights: z.string(), excluded: z.number().int().optional(), ...common }),
  fleiss: z.object({ kappa: nullableNumber, se: nullableNumber, z: nullableNumber, p: nullableNumber, byCategory: z.record(z.string(), nullableNumber), subjects: z.number().int(), raters: z.number().int(), ...common }),
  alpha: z.object({ alpha: nullableNumber, level: z.string(), units: z.number().int(), pairable: z.number().int(), values: z.number(), ...common }),
  wilson: z.object({ estimate: nullableNumber, ci: interval, successes: z.number().int(), trials: z.number().int(), confidence: z.number(), ...common }),
  corr: z.object({ r: nullableNumber, p: nullableNumber, n: z.number().int(), ci: interval.optional(), method: z.string(), ...common }),
  icc: z.object({ ICC1: IccForm, ICC2: IccForm, ICC3: IccForm, ICC1k: IccForm, ICC2k: IccForm, ICC3k: IccForm, subjects: z.number().int(), raters: z.number().int(), ...common }),
  mcnemar: z.object({ statistic: nullableNumber, p: nullableNumber, method: z.string(), b: z.number().int(), c: z.number().int(), ...common }),
} satisfies Record<StatName, z.ZodType>;

const SUMMARIES: Record<StatName, string> = {
  kappa: "Two raters' agreement: Cohen's kappa (or Scott's pi, Gwet's AC1/AC2) with SE and CI",
  fleiss: "Fleiss' kappa for many raters (subjects × categories counts, or raw labels)",
  alpha: "Krippendorff's alpha from a raters × units matrix",
  wilson: 'Wilson score interval for a proportion',
  corr: 'Pearson, Spearman or Kendall (tau-b) correlation with a two-sided p-value',
  icc: 'Intraclass correlations (Shrout & Fleiss six forms) from a subjects × raters matrix',
  mcnemar: "McNemar's test on the discordant counts b and c",
};

const title = (name: string) => name[0]!.toUpperCase() + name.slice(1);

export function registerStats(api: Api): void {
  for (const name of Object.keys(BODIES) as StatName[]) {
    const example = STATS_EXAMPLES[name];
    defineRoute(api, {
      scope: 'read',
      route: createRoute({
        method: 'post',
        path: `/api/stats/${name}`,
        operationId: `stats${title(name)}`,
        tags: ['stats'],
        summary: SUMMARIES[name],
        request: { body: { required: true, content: { 'application/json': { schema: BODIES[name].openapi(`Stats${title(name)}Request`), example: example.request } } } },
        responses: {
          200: { description: `The document \`assay stats ${name} --json\` prints`, content: { 'application/json': { schema: RESULTS[name].openapi(`Stats${title(name)}`), example: example.response } } },
          ...errorResponses,
          ...(example.badInput ? badInputResponse(example.badInput) : {}),
          ...bodyResponses,
        },
      }),
      handler: (c) => c.json(computeStatistic(name, c.req.valid('json') as StatInputs[typeof name]) as never, 200),
    });
  }
}
