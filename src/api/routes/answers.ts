import { createRoute, z } from '@hono/zod-openapi';
import { ANSWER_STATUSES, TASK_KINDS } from '../../db/schema.ts';
import { getAnswer, importAnswersJsonl, listAnswers } from '../../services/answers.ts';
import { getAssemblyScore, listAssemblyScores } from '../../services/assemblies.ts';
import { submitAssembly } from '../../services/assembly-submit.ts';
import { jsonlBody, jsonlRequestBody } from '../body.ts';
import { respondList } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { errorResponses, notFoundResponse, PageQuery, tooLargeResponse } from '../schemas.ts';

/** Answers (bulk JSON Lines upload, lists, one answer) and assembly scoring. */

const json = (description: string) => ({ description, content: { 'application/json': { schema: z.any() } } });
const Id = z.coerce.number().int().positive();
const Name = z.string().min(1).max(200);

const AnswerFilters = PageQuery.extend({
  run: Name.optional(),
  model: Name.optional(),
  rubric: Name.optional(),
  puzzle: Name.optional(),
  task: z.enum(TASK_KINDS).optional(),
  status: z.enum(ANSWER_STATUSES).optional(),
});

const UploadDefaults = z.object({
  run: Name.optional().openapi({ description: 'Run for rows without "run"' }),
  model: Name.optional().openapi({ description: 'Model for rows without "model"' }),
  effort: Name.optional(),
  task: z.enum(TASK_KINDS).optional(),
  tags: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(',').map((t) => t.trim()).filter(Boolean) : undefined))
    .openapi({ description: 'Comma-separated condition tags for a new run, e.g. tagged' }),
});

const PieceId = z.union([z.string().min(1), z.number()]).transform(String);

export const AssemblyBody = z
  .object({
    run: Name,
    model: Name,
    puzzle: Name,
    id: z.union([Name, z.number().int()]).transform(String).optional(),
    answer: z.union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).openapi({
      description: 'Text with a grid block, a JSON 2-D array of ids, or a mapping {"id": [row, col]}',
    }),
    given: z.array(PieceId).optional(),
    effort: Name.optional(),
    tags: z.array(Name).optional(),
    inputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative().optional(),
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
      tags: ['answers'],
      summary: 'List answers, filtered by run, model, rubric, puzzle, task, status',
      request: { query: AnswerFilters },
      responses: { 200: json('A page of answers (or CSV)'), ...errorResponses },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      const r = await listAnswers(database, q);
      return respondList(c, { items: r.answers, total: r.total, limit: q.limit, offset: q.offset });
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/answers/{id}',
      tags: ['answers'],
      summary: 'One answer',
      request: { params: z.object({ id: Id }) },
      responses: { 200: json('The answer'), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getAnswer(database, c.req.valid('param').id), 200),
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/answers',
      tags: ['answers'],
      summary: 'Upload answers as JSON Lines (all or nothing: one bad line and nothing is stored)',
      description:
        'Each line: {"id","run"?,"model"?,"task":"describe|assemble|describe-then-solve|choice","puzzle"?,"rubric"?,"text",' +
        '"effort"?,"tags"?,"usage"?|"input_tokens"?,"output_tokens"?,"stop_reason"?,"meta"?}. Query parameters give defaults.',
      request: { query: UploadDefaults, body: jsonlRequestBody('One answer per line') },
      responses: { 200: json('Runs touched, answers imported and unchanged'), ...errorResponses, ...tooLargeResponse },
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
      tags: ['assemblies'],
      summary: 'Submit one assembly answer: it is scored against the puzzle truth and stored with its score',
      request: { body: { required: true, content: { 'application/json': { schema: AssemblyBody } } } },
      responses: {
        201: json('Stored and scored: {answerId, created, status, problems, direct, exactMatch, neighbour, adjacency, proximity, shapeCompatibility, byPosition}'),
        ...errorResponses,
        ...notFoundResponse,
        ...tooLargeResponse,
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
      tags: ['assemblies'],
      summary: 'List stored assembly scores, filtered by run, model, puzzle',
      request: { query: PageQuery.extend({ run: Name.optional(), model: Name.optional(), puzzle: Name.optional() }) },
      responses: { 200: json('A page of scores (or CSV)'), ...errorResponses },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      const r = await listAssemblyScores(database, q);
      return respondList(c, { items: r.scores, total: r.total, limit: q.limit, offset: q.offset });
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/assemblies/{answerId}',
      tags: ['assemblies'],
      summary: 'The stored score of one assembly answer',
      request: { params: z.object({ answerId: Id }) },
      responses: { 200: json('The score'), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getAssemblyScore(database, c.req.valid('param').answerId), 200),
  });
}
