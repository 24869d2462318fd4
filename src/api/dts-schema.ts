import { z } from '@hono/zod-openapi';
import { DTS_METRICS } from '../services/reports.ts';
import { judgeInfo, policyInfo, withInterval } from './report-schema.ts';

/**
 * The describe-then-solve report (src/services/report-analysis.ts DtsResult, analysis/describe-then-solve
 * DtsReport) and its flat rows (flattenDts) as OpenAPI schemas; every figure in docs/analysis.md. Objects
 * are not strict.
 */

const interval = z.tuple([z.number(), z.number()]).nullable();
const reason = z.string().optional();
const Proportion = z
  .object({ successes: z.number().int(), trials: z.number().int(), estimate: z.number().nullable(), ci: interval, reason })
  .openapi('Proportion', { description: 'A share with its 95% Wilson interval; null (with reason) when trials is 0' });
const Correlation = z.object({ r: z.number().nullable(), p: z.number().nullable(), reason });

const group = {
  n: z.number().int(),
  perception: Proportion.openapi({ description: 'P(P✓): the description was good enough' }),
  answerGivenPerception: Proportion.openapi({ description: 'P(A✓ | P✓)' }),
  answerGivenNoPerception: Proportion.openapi({ description: 'P(A✓ | P✗)' }),
  answer: Proportion.openapi({ description: 'End-to-end P(A✓)' }),
  identity: z
    .object({ lhs: z.number().nullable(), rhs: z.number().nullable(), residual: z.number().nullable(), holds: z.boolean().nullable(), reason })
    .openapi({ description: 'P(A✓) = P(P✓)P(A✓|P✓) + P(P✗)P(A✓|P✗); residual = lhs − rhs' }),
  correlation: z.object({ pearson: Correlation, spearman: Correlation }).optional().openapi({ description: 'Raw score correlation, only when a score is numeric' }),
};
const DtsGroup = z.object(group).openapi('DtsGroup');

const DtsReport = z
  .object({
    thresholds: z.object({ perception: z.number().nullable(), answer: z.number().nullable() }),
    overall: DtsGroup,
    byModel: z.record(z.string(), z.object({ ...group, bySlice: z.record(z.string(), DtsGroup) })),
    bySlice: z.record(z.string(), DtsGroup),
  })
  .openapi('DtsReport');

const trials = z.number().int();
const DtsRow = z
  .object({
    scope: z.enum(['overall', 'model', 'slice', 'model×slice']),
    model: z.string().nullable(),
    slice: z.string().nullable(),
    n: z.number().int(),
    ...withInterval('perception'),
    perceptionN: trials,
    ...withInterval('answerGivenPerception'),
    answerGivenPerceptionN: trials,
    ...withInterval('answerGivenNoPerception'),
    answerGivenNoPerceptionN: trials,
    ...withInterval('answer'),
    answerN: trials,
    identityHolds: z.boolean().nullable(),
  })
  .openapi('DtsRow', { description: "One group of the report as a flat row (the CSV's columns); xN is the trials behind share x" });

export const DtsResultSchema = z
  .object({
    ...judgeInfo,
    ...policyInfo,
    perception: z.enum(['f1', 'label']),
    metric: z.enum(DTS_METRICS),
    paired: z.number().int().openapi({ description: 'Scored assemblies paired with a description of the same puzzle in their run' }),
    unpaired: z.number().int().openapi({ description: 'Scored assemblies left out: no graded (or labelled) description of their puzzle in their run, or several (ambiguous)' }),
    ambiguous: z.number().int().openapi({
      description:
        'Of the unpaired, those whose run holds two or more descriptions of the puzzle with a perception (graded ok by the judge, or labelled): which one the assembly followed is unknown, so none is taken',
    }),
    report: z.union([DtsReport, z.null()]),
    reason: z.string().optional().openapi({ description: 'Why report is null' }),
    rows: z.array(DtsRow),
  })
  .openapi('DescribeThenSolveReport');
