import { createRoute, z } from '@hono/zod-openapi';
import { LABEL_KINDS } from '../../domain/label-kinds.ts';
import { Fields } from '../../domain/fields.ts';
import { annotationQueue } from '../../services/annotation-queue.ts';
import { importLabels } from '../../services/import-labels.ts';
import { listLabels, saveLabel } from '../../services/labels.ts';
import { AssayError } from '../../domain/errors.ts';
import { jsonlBody, jsonlRequestBody } from '../body.ts';
import { respondList } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { ANNOTATION_EXAMPLE, LABELS_EXAMPLE } from '../examples/request-examples.ts';
import { AnnotationQueuePage, LabelImportSchema, LabelPage, SavedLabelSchema } from '../label-schema.ts';
import { bodyResponses, errorResponses, ErrorSchema, jsonOrCsvResponse, jsonResponse, notFoundResponse, PageQuery, unknownFilterResponse } from '../schemas.ts';

/** Calibration labels (bulk, write scope) and one-at-a-time annotation (annotate scope). */

const Name = Fields.annotator;

const AnnotationBody = z
  .object({
    answerId: Fields.rowId,
    item: Fields.labelItem.nullable().optional().openapi({ description: 'Rubric item id; absent for a whole-answer label' }),
    label: z.union([Fields.label, z.number(), z.boolean()]).transform(String),
    annotator: Name.optional().openapi({ description: "The key's name (the default); any other name is refused with 403" }),
  })
  .strict()
  .openapi('Annotation');

const ReplaceFlag = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true')
  .openapi({ description: 'Allow changing stored labels; without it such an import is refused with 409 and nothing is written' });

const conflictResponse = {
  409: { description: 'The import would change stored labels (the message says how many, with examples); nothing written', content: { 'application/json': { schema: ErrorSchema } } },
} as const;

/**
 * An annotate key labels as itself: the label's annotator is the key's name, so one annotator cannot
 * overwrite (or forge) another's labels. A different name in the request is refused, never ignored.
 */
function ownName(caller: { name: string }, asked: string | undefined, field: string): string {
  if (asked !== undefined && asked !== caller.name) {
    throw new AssayError('forbidden', `${field}: this key annotates as '${caller.name}' and cannot act as '${asked}' (leave ${field} out)`);
  }
  return caller.name;
}

export function registerLabels(api: Api): void {
  const { database } = api.deps;

  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'get',
      path: '/api/labels',
      operationId: 'listLabels',
      tags: ['labels'],
      summary: 'List labels, filtered by run, annotator, kind',
      request: { query: PageQuery.extend({ run: Name.optional(), annotator: Name.optional(), kind: z.enum(LABEL_KINDS).optional() }) },
      responses: { 200: jsonOrCsvResponse('A page of labels (or CSV)', LabelPage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      await requireNamed(database, q, { run: 'run', annotator: 'annotator' });
      const r = await listLabels(database, q);
      return respondList(c, { items: r.labels, total: r.total, limit: q.limit, offset: q.offset }, LabelPage);
    },
  });

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/labels',
      operationId: 'importLabels',
      tags: ['labels'],
      summary: 'Import labels as JSON Lines ({answer|answer_id, run?, item?, rater, kind?, label}); all or nothing; changing stored labels needs ?replace=true',
      request: { query: z.object({ run: Name.optional(), replace: ReplaceFlag }), body: jsonlRequestBody('One label per line', LABELS_EXAMPLE) },
      responses: { 200: jsonResponse('Labels inserted, replaced and unchanged, and the runs they label', LabelImportSchema), ...errorResponses, ...conflictResponse, ...bodyResponses },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      return c.json(await importLabels(database, { path: 'body', content: await jsonlBody(c) }, { ...(q.run ? { run: q.run } : {}), replace: q.replace }), 200);
    },
  });

  defineRoute(api, {
    scope: 'annotate',
    route: createRoute({
      method: 'get',
      path: '/api/annotations/queue',
      operationId: 'getAnnotationQueue',
      tags: ['annotation'],
      summary: "Description answers the key's annotator has not labelled yet",
      request: { query: PageQuery.extend({ annotator: Name.optional().openapi({ description: "The key's name (the default); any other name is refused with 403" }), run: Name.optional() }) },
      responses: { 200: jsonOrCsvResponse('A page of answers to label (or CSV)', AnnotationQueuePage), ...errorResponses, ...unknownFilterResponse },
    }),
    handler: async (c) => {
      const q = c.req.valid('query');
      const annotator = ownName(c.get('caller'), q.annotator, 'annotator');
      await requireNamed(database, q, { run: 'run' });
      const r = await annotationQueue(database, { ...q, annotator });
      return respondList(c, { items: r.items, total: r.total, limit: q.limit, offset: q.offset }, AnnotationQueuePage);
    },
  });

  defineRoute(api, {
    scope: 'annotate',
    route: createRoute({
      method: 'post',
      path: '/api/annotations',
      operationId: 'saveAnnotation',
      tags: ['annotation'],
      summary: 'Save one human label (replaces this annotator’s earlier label of the same answer and item)',
      request: { body: { required: true, content: { 'application/json': { schema: AnnotationBody, example: ANNOTATION_EXAMPLE } } } },
      responses: { 200: jsonResponse('Saved', SavedLabelSchema), ...errorResponses, ...notFoundResponse, ...bodyResponses },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      const annotator = ownName(c.get('caller'), b.annotator, 'annotator');
      return c.json(await saveLabel(database, { answerId: b.answerId, item: b.item ?? null, annotator, kind: 'human', label: b.label }), 200);
    },
  });
}
