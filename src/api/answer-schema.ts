import { z } from '@hono/zod-openapi';
import { ANSWER_STATUSES, TASK_KINDS } from '../domain/answers.ts';
import { pageOf, Timestamp } from './schemas.ts';

/**
 * What the answer and assembly routes return (src/services/answers.ts AnswerView, import-answers.ts
 * AnswerImportResult, scoring/grid GridScore) as OpenAPI schemas. Objects are not strict: a field added
 * to a view shows up before it is described here.
 */

export const AnswerSchema = z
  .object({
    id: z.number().int(),
    externalId: z.string().openapi({ description: 'The "id" of the uploaded row; unique within its run' }),
    run: z.string(),
    model: z.string(),
    effort: z.string().nullable(),
    runTags: z.array(z.string()),
    task: z.enum(TASK_KINDS),
    puzzle: z.string().nullable(),
    rubric: z.string().nullable(),
    text: z.string().nullable(),
    status: z.enum(ANSWER_STATUSES),
    inputTokens: z.number().int().nullable(),
    outputTokens: z.number().int().nullable(),
    meta: z.record(z.string(), z.unknown()).openapi({ description: "The uploaded row's meta (free-form JSON object)" }),
    createdAt: Timestamp,
  })
  .openapi('Answer');
export const AnswerPage = pageOf('AnswerPage', AnswerSchema);

export const AnswerImportSchema = z
  .object({
    runs: z.array(z.object({ name: z.string(), model: z.string(), created: z.boolean(), imported: z.number().int(), unchanged: z.number().int() })),
    imported: z.number().int(),
    unchanged: z.number().int(),
    scored: z.number().int().openapi({ description: 'Assemble and describe-then-solve answers scored by this upload (their grids)' }),
    answerIds: z.array(z.number().int()).openapi({ description: "Every row's answer id (new or already stored), in file order" }),
  })
  .openapi('AnswerImport');

const share = z.number().nullable();
/** scoreGrid's document (docs/scoring.md): a metric is null where the grid makes it undefined (1×1). */
const gridScore = {
  status: z.enum(['valid', 'repaired', 'invalid']),
  problems: z.array(z.string()),
  direct: z.number(),
  exactMatch: z.number(),
  neighbour: share,
  adjacency: share,
  proximity: share,
  shapeCompatibility: share,
  byPosition: z.object({ corner: share, edge: share, interior: share }),
};

export const AssemblyScoreSchema = z.object({ answerId: z.number().int(), ...gridScore }).openapi('AssemblyScore');

export const SubmittedAssemblySchema = z
  .object({ answerId: z.number().int(), created: z.boolean().openapi({ description: 'false: the same answer was already stored (status 200)' }), ...gridScore })
  .openapi('SubmittedAssembly');

const AssemblyScoreRow = z
  .object({ answerId: z.number().int(), ...gridScore, answer: z.string(), run: z.string(), model: z.string(), puzzle: z.string(), sizeBucket: z.string().nullable() })
  .openapi('AssemblyScoreRow');
export const AssemblyScorePage = pageOf('AssemblyScorePage', AssemblyScoreRow);
