import { z } from '@hono/zod-openapi';

/**
 * The table reports (src/services/report-tables.ts: orientation, condition ablation, effort) as OpenAPI
 * schemas, and the judge fields every report carries (report-data.ts JudgeInfo). Rows are flat so they
 * read as CSV too; `xLow`/`xHigh` are the 95% interval of `x` (bootstrap over answers for means, Wilson
 * for shares), null with `x` when there is nothing to average. Objects are not strict.
 */

const figure = z.number().nullable();
/** `name`, `nameLow`, `nameHigh`: an estimate and its 95% interval. */
export const withInterval = <N extends string>(name: N) =>
  ({ [name]: figure, [`${name}Low`]: figure, [`${name}High`]: figure }) as Record<N | `${N}Low` | `${N}High`, typeof figure>;

/** What every report says about the judge behind its grades. */
export const judgeInfo = {
  judge: z.string().nullable().openapi({ description: 'Slug of the judge whose grades the report uses; null when nothing is graded' }),
  judgeBaseline: z.boolean().openapi({ description: 'The judge is the lexical baseline (no provider key): scores are a floor' }),
  judgeNote: z.string().nullable().openapi({ description: 'A sentence to show beside the report; null for an LLM judge' }),
};

/** What a report of description F1 says of the unverifiable-claims policy it reads the grades under (services/report-policy.ts). */
export const policyInfo = {
  unverifiable: z.enum(['count', 'exclude']).openapi({ description: 'The unverifiable-claims policy every F1 of the report is under (design §2.1): one definition of correctness, never a mix' }),
  unverifiableNote: z
    .string()
    .nullable()
    .openapi({ description: "How many grades the report left out because they hold the other policy's correctness and their stored claims cannot rescore them (panel grades); null when none" }),
};

const OrientationRow = z
  .object({
    model: z.string(),
    landscapeCorrect: z.number().int(),
    landscapeTotal: z.number().int(),
    portraitCorrect: z.number().int(),
    portraitTotal: z.number().int(),
    notStated: z.number().int().openapi({ description: 'Answers that state no orientation (counted as not correct)' }),
    correct: z.number().int(),
    total: z.number().int(),
    ...withInterval('accuracy'),
  })
  .openapi('OrientationRow');
export const OrientationReportSchema = z.object({ ...judgeInfo, rows: z.array(OrientationRow) }).openapi('OrientationReport');

const AblationRow = z
  .object({
    model: z.string(),
    condition: z.string().openapi({ description: 'The condition tag, or plain for runs without it' }),
    descriptions: z.number().int(),
    ...withInterval('f1'),
    pieceCountStated: z.number().int().openapi({ description: 'Descriptions stating a piece count' }),
    ...withInterval('pieceCountError'),
    assemblies: z.number().int(),
    neighbour: figure,
  })
  .openapi('AblationRow');
export const AblationReportSchema = z.object({ ...judgeInfo, ...policyInfo, tag: z.string(), rows: z.array(AblationRow) }).openapi('AblationReport');

const EffortRow = z
  .object({
    model: z.string(),
    effort: z.string().openapi({ description: 'The effort level; default for runs without one' }),
    answers: z.number().int(),
    missing: z.number().int().openapi({ description: 'Answers with no usable output (status no_answer, truncated or error)' }),
    truncated: z.number().int(),
    descriptions: z.number().int(),
    ...withInterval('f1'),
    assemblies: z.number().int(),
    ...withInterval('neighbour'),
    medianOutputTokens: figure,
  })
  .openapi('EffortRow');
export const EffortReportSchema = z.object({ ...judgeInfo, ...policyInfo, rows: z.array(EffortRow) }).openapi('EffortReport');
