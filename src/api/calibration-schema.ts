import { z } from '@hono/zod-openapi';
import { HUMANS_MODES } from '../domain/campaigns.ts';

/**
 * The calibration report (src/analysis/calibration/types.ts CalibrationReport) as an OpenAPI schema, for
 * every route that returns one. Objects are not strict: a field added to the report shows up in the
 * response before it is described here, never makes a valid report fail.
 */

const interval = z.tuple([z.number(), z.number()]).nullable();
const reason = z.string().optional();
const Kappa = z.object({ kappa: z.number().nullable(), se: z.number().nullable(), ci: interval, reason }).openapi('KappaStat');
const Correlation = z.object({ r: z.number().nullable(), p: z.number().nullable(), ci: interval.optional(), reason }).openapi('CorrelationStat');
const category = z.union([z.string(), z.number()]);

const Pair = z
  .object({
    n: z.number().int(),
    agreement: z.number().nullable().optional(),
    kappa: Kappa.optional(),
    weightedKappa: Kappa.optional(),
    confusion: z.object({ categories: z.array(category), matrix: z.array(z.array(z.number())) }).optional(),
    pearson: Correlation.optional(),
    spearman: Correlation.optional(),
    bias: z.number().nullable().optional(),
    mae: z.number().nullable().optional(),
    reason,
  })
  .openapi('PairStats', { description: 'Two raters over the units both labelled (docs/analysis.md)' });

const Alpha = z
  .object({ alpha: z.number().nullable(), level: z.enum(['nominal', 'ordinal', 'interval', 'ratio']), ci: interval, units: z.number().int(), raters: z.array(z.string()), reason })
  .openapi('AlphaStat');

const comparison = { vsHumans: z.record(z.string(), Pair), vsMajority: Pair };

const Trust = z
  .object({
    statistic: z.enum(['weightedKappa', 'kappa', 'pearson']),
    value: z.number().nullable(),
    ci: interval,
    ceiling: z.number().nullable(),
    ceilingCi: interval,
    humanLevel: z.number().nullable(),
    humans: z.array(z.object({ annotator: z.string(), n: z.number().int(), value: z.number().nullable() })),
    rule: z.string(),
    withinHumanRange: z.boolean().nullable(),
    reason,
  })
  .openapi('TrustReading');

const Judge = z
  .object({
    rater: z.string(),
    units: z.number().int(),
    ...comparison,
    trust: Trust,
    byModel: z.record(z.string(), z.object(comparison)),
    byItem: z.array(
      z.object({
        rubric: z.string().nullable().openapi({ description: "The item's rubric (id); null when the label rows name none. Rubrics share item ids, so a row is one (rubric, item)" }),
        item: z.string(),
        n: z.number().int(),
        disagreements: z.number().int(),
        disagreement: z.number().nullable(),
        topConfusion: z.object({ judge: category, majority: category, count: z.number().int() }).nullable(),
        ...comparison,
      }),
    ),
    answers: z.object({
      n: z.number().int(),
      weighted: z.boolean(),
      pearson: Correlation,
      spearman: Correlation,
      bias: z.number().nullable(),
      mae: z.number().nullable(),
      answers: z.array(z.object({ answer: z.string(), model: z.string().nullable(), judge: z.number(), human: z.number(), units: z.number().int() })),
      reason,
    }),
  })
  .openapi('JudgeCalibration');

export const CalibrationReportSchema = z
  .object({
    scale: z.enum(['verdict', 'binary', 'numeric']),
    units: z.number().int(),
    answers: z.number().int(),
    items: z.number().int(),
    models: z.array(z.string()),
    humans: z.array(z.string()),
    judges: z.array(z.string()),
    consensus: z.string(),
    majority: z.object({
      units: z.number().int(),
      ties: z.number().int(),
      tied: z.array(z.object({ answer: z.string(), item: z.string().nullable() })),
      singleRater: z.number().int(),
    }),
    humanCeiling: z.object({ alpha: Alpha, pairs: z.record(z.string(), Pair), leaveOneOut: z.record(z.string(), Pair) }),
    judgeReports: z.array(Judge),
    judgeJudge: z.object({ alpha: Alpha, pairs: z.record(z.string(), Pair) }).nullable(),
    notes: z.array(z.string()),
  })
  .openapi('CalibrationReport', { description: 'The `assay calibrate --json` document; every figure is defined in docs/analysis.md' });

/** Per anchored judge, the answers left out of its figures (docs/judges.md): the one schema of the field, on every calibration route. */
export const ExcludedExamplesField = z
  .record(z.string(), z.number().int())
  .openapi({ description: 'Per anchored judge, the answers left out of its figures because it was shown them as examples (docs/judges.md); judges without examples absent' });

/** POST /api/calibrate: the `assay calibrate --labels … --json` report, with the anchored judges' examples left out of the body. */
export const LabelSetCalibrationSchema = CalibrationReportSchema.extend({ excludedExamples: ExcludedExamplesField }).openapi('LabelSetCalibrationReport', {
  description: 'The `assay calibrate --labels --json` document: a judge whose judges/ file lists examples of a label set has its rows of those answers left out (docs/judges.md)',
});

/**
 * The human side of a calibration (docs/annotation.md, "The published table"): each annotator, their
 * majority, or the adjudicated final labels: the one schema of the field, the page's ?humans= and the CLI's --humans alike.
 */
export const HumansField = z
  .enum(HUMANS_MODES)
  .openapi({ description: 'The human side: each annotator a rater (the default), their majority as one rater, or the adjudicated final labels (else the majority); docs/annotation.md' });
