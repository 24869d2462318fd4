import { createRoute, z } from '@hono/zod-openapi';
import { Fields } from '../../domain/fields.ts';
import { GRADE_STATUSES } from '../../domain/grades.ts';
import { CAPS, INT4_MAX, RowIdParamSchema, text } from '../../domain/limits.ts';
import { NO_QUORUM_STATUS } from '../../domain/panel.ts';
import { getGrade, listGrades } from '../../services/grading/grade-list.ts';
import { emptyPageColumns, toCsv, wantsCsv } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { GradePageSchema, GradeSchema } from '../grade-schema.ts';
import { errorResponses, jsonOrCsvResponse, jsonResponse, notFoundResponse, queryLimit, unknownFilterResponse } from '../schemas.ts';

/**
 * GET /api/grades and /api/grades/{id}: stored grades in the one grade shape. The list holds every
 * stored grade (grades are versioned: earlier versions of an answer × judge too), newest id first,
 * keyset-paginated by an opaque cursor (src/services/grading/grade-list.ts; docs/http-api.md).
 */

const Id = z.string().pipe(RowIdParamSchema).openapi({ type: 'integer', minimum: 1, maximum: INT4_MAX });

const GradeQuery = z.object({
  run: Fields.run.optional().openapi({ description: 'Run name or id' }),
  model: Fields.model.optional().openapi({ description: "The run's model" }),
  // Any stored judge id, not only a judges/ file's slug: an imported tool's grades are judge `<tool>:<scorer>` (docs/formats.md).
  judge: text(CAPS.name).optional().openapi({ description: "Judge id as in judges/, or of an imported tool's scores (`inspect:model_graded_qa`): the grade's judge.id; every configuration of it" }),
  status: z.enum([...GRADE_STATUSES, NO_QUORUM_STATUS]).optional(),
  answer: Id.optional().openapi({ description: "One answer's grades (its id)" }),
  limit: queryLimit(50).openapi({ description: 'Page size (1–1000, default 50)' }),
  cursor: z.string().min(1).max(100).optional().openapi({ description: 'The nextCursor of the previous page (opaque)' }),
});

export function registerGradeReads(api: Api): void {
  const { database } = api.deps;

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/grades',
      operationId: 'listGrades',
      tags: ['grades'],
      summary: 'List stored grades (every version), newest first, filtered by run, model, judge, status, answer; cursor-paginated',
      request: { query: GradeQuery },
      responses: { 200: jsonOrCsvResponse('A page of grades (or its grades as CSV, X-Next-Cursor and X-Total-Count in headers)', GradePageSchema), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const { answer, ...q } = c.req.valid('query');
      // The run as the list takes it: by name, or by id (findRun); the service would refuse it too.
      await requireNamed(database, { ...q, answer }, { run: 'runRef', model: 'model', judge: 'judge', answer: 'answer' });
      const page = await listGrades(database, { ...q, ...(answer !== undefined ? { answerId: answer } : {}) });
      if (wantsCsv(c)) {
        return c.body(toCsv(page.items as unknown as Record<string, unknown>[], page.items.length ? undefined : emptyPageColumns(GradePageSchema)), 200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'X-Total-Count': String(page.total),
          ...(page.nextCursor ? { 'X-Next-Cursor': page.nextCursor } : {}),
        });
      }
      return c.json(page, 200);
    },
  });

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/grades/{id}',
      operationId: 'getGrade',
      tags: ['grades'],
      summary: 'One stored grade by its gradeId',
      request: { params: z.object({ id: Id }) },
      responses: { 200: jsonResponse('The grade', GradeSchema), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json(await getGrade(database, c.req.valid('param').id), 200),
  });
}
