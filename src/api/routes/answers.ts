import { createRoute, z } from '@hono/zod-openapi';
import { ANSWER_STATUSES, TASK_KINDS } from '../../domain/answers.ts';
import { Fields, JsonValueSchema } from '../../domain/fields.ts';
import { inexactIdNumber } from '../../domain/grid.ts';
import { CAPS, INT4_MAX, RowIdParamSchema } from '../../domain/limits.ts';
import { getAnswer, importAnswersJsonl, listAnswers } from '../../services/answers.ts';
import { getAssemblyScore, listAssemblyScores } from '../../services/assemblies.ts';
import { submitAssembly } from '../../services/assembly-submit.ts';
import { jsonlBody, jsonlRequestBody } from '../body.ts';
import { respondList } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { ANSWERS_EXAMPLE, ASSEMBLY_EXAMPLE } from '../examples/request-examples.ts';
import { AnswerImportSchema, AnswerPage, AnswerSchema, AssemblyScorePage, AssemblyScoreSchema, SubmittedAssemblySchema } from '../answer-schema.ts';
import { bodyResponses, errorResponses, jsonOrCsvResponse, jsonResponse, notFoundResponse, PageQuery, unknownFilterResponse } from '../schemas.ts';

/** Answers (bulk JSON Lines upload, lists, one answer) and assembly scoring. */

// Domain schemas predate the .openapi() extension (zod 4 sets methods per instance): wrap, then describe.
const Id = z.string().pipe(RowIdParamSchema).openapi({ type: 'integer', minimum: 1, maximum: INT4_MAX });

const AnswerFilters = PageQuery.extend({
  run: Fields.run.optional(),
  model: Fields.model.optional(),
  rubric: Fields.ref.optional(),
  puzzle: Fields.ref.optional(),
  task: z.enum(TASK_KINDS).optional(),
  status: z.enum(ANSWER_STATUSES).optional(),
});

const UploadDefaults = z.object({
  run: Fields.run.optional().openapi({ description: 'Run for rows without "run"' }),
  model: Fields.model.optional().openapi({ description: 'Model for rows without "model"' }),
  effort: Fields.effort.optional(),
  task: z.enum(TASK_KINDS).optional(),
  // Given empty it is refused as ?run= is: read as absent, the rows went into a tagged run unchecked.
  tags: z
    .string()
    .min(1, 'must not be empty')
    .max(CAPS.longText)
    .optional()
    .transform((s) => (s === undefined ? undefined : s.split(',').map((t) => t.trim()).filter(Boolean)))
    .pipe(z.array(Fields.tag).max(100).optional())
    .openapi({ description: 'Comma-separated condition tags for a new run, e.g. tagged' }),
});

// A number past 2^53 − 1 arrives already rounded by JSON.parse (it would name another piece): refused.
const PieceId = z
  .union([Fields.pieceId, z.number()])
  .superRefine((v, ctx) => {
    const p = inexactIdNumber(v);
    if (p) ctx.addIssue({ code: 'custom', message: p });
  })
  .transform(String);

export const AssemblyBody = z
  .object({
    run: Fields.run,
    model: Fields.model,
    puzzle: Fields.ref,
    id: z.union([Fields.answerExternalId, z.number().int()]).transform(String).optional(),
    answer: z.union([Fields.answerText, z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]).openapi({
      description: 'Text with a grid block, a JSON 2-D array of ids, or a mapping {"id": [row, col]}',
    }),
    given: z.array(PieceId).optional(),
    effort: Fields.effort.optional(),
    tags: z.array(Fields.tag).max(100).optional(),
    inputTokens: Fields.tokens.optional(),
    outputTokens: Fields.tokens.optional(),
  })
  .strict()
  .openapi('AssemblySubmission');

export function registerAnswers(api: Api): void {
  const { database } = api.deps;

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/answers',
      operationId: 'listAnswers',
      tags: ['answers'],
      summary: 'List answers, filtered by run, model, rubric, puzzle, task, status',
      request: { query: AnswerFilters },
      responses: { 200: jsonOrCsvResponse('A page of answers (or CSV)', AnswerPage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { run: 'run', model: 'model', rubric: 'rubric', puzzle: 'puzzle' });
      const r = await listAnswers(database, q);
      return respondList(c, { items: r.answers, total: r.total, limit: q.limit, offset: q.offset }, AnswerPage);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/answers/{id}',
      operationId: 'getAnswer',
      tags: ['answers'],
      summary: 'One answer',
      request: { params: z.object({ id: Id }) },
      responses: { 200: jsonResponse('The answer', AnswerSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getAnswer(database, c.req.valid('param').id), 200),
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/answers',
      operationId: 'uploadAnswers',
      tags: ['answers'],
      summary: 'Upload answers as JSON Lines (all or nothing: one bad line and nothing is stored)',
      description:
        'Each line: {"id","run"?,"model"?,"task":"describe|assemble|describe-then-solve|choice","puzzle"?,"rubric"?,"text",' +
        '"effort"?,"tags"?,"usage"?|"input_tokens"?,"output_tokens"?,"stop_reason"?,"meta"?}. Query parameters give defaults.',
      request: { query: UploadDefaults, body: jsonlRequestBody('One answer per line', ANSWERS_EXAMPLE) },
      responses: { 200: jsonResponse('Runs touched, answers imported and unchanged', AnswerImportSchema), ...errorResponses, ...bodyResponses },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      const defaults = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined));
      return c.json(await importAnswersJsonl(database, { path: 'body', content: await jsonlBody(c) }, defaults), 200);
    },
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/assemblies',
      operationId: 'submitAssembly',
      tags: ['assemblies'],
      summary: 'Submit one assembly answer: it is scored against the puzzle truth and stored with its score',
      request: { body: { required: true, content: { 'application/json': { schema: AssemblyBody, example: ASSEMBLY_EXAMPLE } } } },
      responses: {
        201: jsonResponse('Stored and scored', SubmittedAssemblySchema),
        200: jsonResponse('Already stored (the same answer under its run and id): its score, created false', SubmittedAssemblySchema),
        ...errorResponses,
        ...notFoundResponse,
        ...bodyResponses,
      },
    }),
    handler: async (c) => {
      const r = await submitAssembly(database, c.req.valid('json'));
      return c.json(r, r.created ? 201 : 200);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/assemblies',
      operationId: 'listAssemblyScores',
      tags: ['assemblies'],
      summary: 'List stored assembly scores, filtered by run, model, puzzle',
      request: { query: PageQuery.extend({ run: Fields.run.optional(), model: Fields.model.optional(), puzzle: Fields.ref.optional() }) },
      responses: { 200: jsonOrCsvResponse('A page of scores (or CSV)', AssemblyScorePage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { run: 'run', model: 'model', puzzle: 'puzzle' });
      const r = await listAssemblyScores(database, q);
      return respondList(c, { items: r.scores, total: r.total, limit: q.limit, offset: q.offset }, AssemblyScorePage);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/assemblies/{answerId}',
      operationId: 'getAssemblyScore',
      tags: ['assemblies'],
      summary: 'The stored score of one assembly answer',
      request: { params: z.object({ answerId: Id }) },
      responses: { 200: jsonResponse('The score', AssemblyScoreSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getAssemblyScore(database, c.req.valid('param').answerId), 200),
  });
}
