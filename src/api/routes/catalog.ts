import { createRoute, z } from '@hono/zod-openapi';
import { Fields } from '../../domain/fields.ts';
import { int4 } from '../../domain/limits.ts';
import { RubricSchema } from '../../domain/rubric.ts';
import { getPuzzle, importPuzzles, listPuzzles } from '../../services/puzzles.ts';
import { getRubric, importParsedRubrics, listRubrics } from '../../services/rubrics.ts';
import { getRun, listRuns } from '../../services/runs.ts';
import { jsonlBody, jsonlRequestBody } from '../body.ts';
import { respondList } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { PUZZLE_IMPORT_RESPONSE, PUZZLES_EXAMPLE, RUBRIC_EXAMPLE, RUBRIC_IMPORT_RESPONSE } from '../examples/request-examples.ts';
import { PuzzleImportSchema, PuzzlePage, PuzzleSchema, RubricImportSchema, RubricPage, RubricVersionSchema, RunPage, RunSchema } from '../catalog-schema.ts';
import { bodyResponses, errorResponses, ErrorSchema, jsonOrCsvResponse, jsonResponse, notFoundResponse, PageQuery, queryNumber, unknownFilterResponse, withExample } from '../schemas.ts';

/** Rubrics, puzzles and runs: the things answers are given against. */

const Slug = Fields.ref;

export function registerCatalog(api: Api): void {
  const { database } = api.deps;

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/rubrics',
      operationId: 'listRubrics',
      tags: ['rubrics'],
      summary: 'List rubrics (latest version and item count)',
      request: { query: PageQuery },
      responses: { 200: jsonOrCsvResponse('A page of rubrics (or CSV)', RubricPage), ...errorResponses },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      const r = await listRubrics(database, q);
      return respondList(c, { items: r.rubrics, total: r.total, ...q }, RubricPage);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/rubrics/{id}',
      operationId: 'getRubric',
      tags: ['rubrics'],
      summary: 'One rubric version with its items (latest unless ?version=)',
      request: { params: z.object({ id: Slug }), query: z.object({ version: queryNumber(int4(1)).openapi({ description: 'A version number (1, 2, …); blank or absent: the latest' }) }) },
      responses: { 200: jsonResponse('The rubric', RubricVersionSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getRubric(database, c.req.valid('param').id, c.req.valid('query').version), 200),
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/rubrics',
      operationId: 'importRubrics',
      tags: ['rubrics'],
      summary: 'Import rubrics (one object or an array); edited content under an existing id adds a version',
      request: {
        body: { required: true, content: { 'application/json': { schema: z.union([RubricSchema, z.array(RubricSchema).min(1).max(1000)]), example: RUBRIC_EXAMPLE } } },
      },
      responses: { 200: withExample(jsonResponse('What was created, versioned or unchanged', RubricImportSchema), RUBRIC_IMPORT_RESPONSE), ...errorResponses, ...bodyResponses },
    }),
    handler: async (c) => {
      const body = c.req.valid('json');
      return c.json(await importParsedRubrics(database, Array.isArray(body) ? body : [body]), 200);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/puzzles',
      operationId: 'listPuzzles',
      tags: ['puzzles'],
      summary: 'List puzzles',
      request: { query: PageQuery.extend({ sizeBucket: Fields.sizeBucket.optional(), rubric: Slug.optional() }) },
      responses: { 200: jsonOrCsvResponse('A page of puzzles (or CSV)', PuzzlePage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { rubric: 'rubric', sizeBucket: 'sizeBucket' });
      const r = await listPuzzles(database, q);
      return respondList(c, { items: r.puzzles, total: r.total, limit: q.limit, offset: q.offset }, PuzzlePage);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/puzzles/{id}',
      operationId: 'getPuzzle',
      tags: ['puzzles'],
      summary: 'One puzzle with its truth layout',
      request: { params: z.object({ id: Slug }) },
      responses: { 200: jsonResponse('The puzzle', PuzzleSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getPuzzle(database, c.req.valid('param').id), 200),
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/puzzles',
      operationId: 'importPuzzles',
      tags: ['puzzles'],
      summary: 'Import puzzles as JSON Lines: {id, rows, cols, layout, edges?, picture?, sizeBucket?, rubric?} per line; changing stored ones needs ?replace=true',
      request: {
        query: z.object({
          replace: z
            .enum(['true', 'false'])
            .optional()
            .transform((v) => v === 'true')
            .openapi({ description: "Allow changing stored puzzles' picture, sizeBucket or rubric; without it such an import is refused with 409" }),
        }),
        body: jsonlRequestBody('One puzzle per line', PUZZLES_EXAMPLE),
      },
      responses: { 200: withExample(jsonResponse('Import summary', PuzzleImportSchema), PUZZLE_IMPORT_RESPONSE), ...errorResponses, 409: { description: 'The import would change stored puzzles; nothing written', content: { 'application/json': { schema: ErrorSchema } } }, ...bodyResponses },
    }),
    handler: async (c) => c.json(await importPuzzles(database, [{ path: 'body.jsonl', content: await jsonlBody(c) }], { replace: c.req.valid('query').replace }), 200),
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/runs',
      operationId: 'listRuns',
      tags: ['runs'],
      summary: 'List runs (a model at an effort under condition tags) with answer counts',
      request: { query: PageQuery.extend({ model: Fields.model.optional() }) },
      responses: { 200: jsonOrCsvResponse('A page of runs (or CSV)', RunPage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { model: 'model' });
      const r = await listRuns(database, q);
      return respondList(c, { items: r.runs, total: r.total, limit: q.limit, offset: q.offset }, RunPage);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/runs/{name}',
      operationId: 'getRun',
      tags: ['runs'],
      summary: 'One run',
      request: { params: z.object({ name: Slug }) },
      responses: { 200: jsonResponse('The run', RunSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getRun(database, c.req.valid('param').name), 200),
  });
}
