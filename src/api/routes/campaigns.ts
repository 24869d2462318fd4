import { createRoute, z } from '@hono/zod-openapi';
import { AdjudicationUnitSchema, CampaignMarkSchema, CampaignSpecSchema, QUEUE_REASONS } from '../../domain/campaigns.ts';
import { Fields } from '../../domain/fields.ts';
import {
  adjudicate,
  campaignDisagreements,
  campaignProgress,
  createCampaign,
  EXPORT_COLUMNS,
  exportCampaign,
  listCampaigns,
  nextForAnnotator,
  saveCampaignLabels,
} from '../../services/campaigns/index.ts';
import { respondRows } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { ADJUDICATION_EXAMPLE, CAMPAIGN_EXAMPLE, CAMPAIGN_LABELS_EXAMPLE } from '../examples/request-examples.ts';
import { bodyResponses, errorResponses, ErrorSchema, jsonOrCsvResponse, notFoundResponse } from '../schemas.ts';

/**
 * Annotation campaigns (docs/annotation.md). Admins create and follow them; an annotate key fetches its
 * next answer and labels it as itself (its key's name), and an annotate key named as one of the
 * campaign's adjudicators records final labels where the annotators disagree.
 */

const Ref = z.object({ ref: z.string().min(1).max(200).openapi({ description: 'Campaign id or name' }) });
const json = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { 'application/json': { schema } } });
const conflict = { 409: { description: 'Name taken, or the answer already has its k annotators; nothing written', content: { 'application/json': { schema: ErrorSchema } } } } as const;

const Summary = z.object({ id: z.number().int(), name: z.string(), overlap: z.number().int(), annotators: z.array(z.string()), answers: z.number().int(), complete: z.number().int(), createdAt: z.string() }).openapi('CampaignSummary');
const Created = z
  .object({ id: z.number().int(), name: z.string(), overlap: z.number().int(), annotators: z.array(z.string()), adjudicators: z.array(z.string()), queued: z.object({ disagreement: z.number().int(), audit: z.number().int(), rest: z.number().int() }) })
  .openapi('CreatedCampaign');
const Reason = z.enum(QUEUE_REASONS);
const Progress = z
  .object({
    campaign: z.object({ id: z.number().int(), name: z.string(), overlap: z.number().int() }),
    answers: z.number().int(),
    complete: z.number().int(),
    annotators: z.array(z.object({ name: z.string(), assigned: z.number().int(), done: z.number().int() })),
    perAnswer: z.array(
      z.object({ answerId: z.number().int(), answer: z.string(), run: z.string(), model: z.string(), rank: z.number().int(), reason: Reason, annotators: z.array(z.object({ name: z.string(), done: z.boolean() })), done: z.number().int(), complete: z.boolean() }),
    ),
  })
  .openapi('CampaignProgress');
const Final = z.object({ answerId: z.number().int(), unit: z.string(), label: z.string(), adjudicator: z.string(), note: z.string().nullable(), createdAt: z.string() });
const Disagreement = z
  .object({ answerId: z.number().int(), answer: z.string(), run: z.string(), model: z.string(), unit: z.string(), labels: z.array(z.object({ annotator: z.string(), label: z.string() })), complete: z.boolean(), adjudication: Final.nullable() })
  .openapi('Disagreement');
const Workspace = z.object({
  campaignId: z.number().int(),
  scales: z.array(z.string()),
  hideReference: z.boolean(),
  binaryQuestion: z.string().optional(),
  numeric: z.object({ k: z.number().int(), anchors: z.array(z.string()) }).optional(),
  why: Reason,
});
// A label sent again as it is stored is unchanged (nothing written), not updated.
const LabelsSaved = z
  .object({
    created: z.number().int().openapi({ description: 'Labels new to this annotator in this campaign' }),
    updated: z.number().int().openapi({ description: 'Labels that replaced one of another value' }),
    unchanged: z.number().int().openapi({ description: 'Labels sent again as they were stored: nothing written' }),
    done: z.boolean(),
  })
  .openapi('CampaignLabelsSaved');
const Next = z.object({ next: z.object({ answerId: z.number().int(), rank: z.number().int(), reason: Reason, resumed: z.boolean(), workspace: Workspace }).nullable() }).openapi('CampaignNext');

const ExportRow = z
  .object({
    campaign: z.string(),
    answer_id: z.number().int(),
    answer: z.string(),
    run: z.string(),
    model: z.string(),
    unit: z.string(),
    rater: z.string(),
    source: z.enum(['annotator', 'adjudication']),
    label: z.string(),
    campaign_id: z.number().int().nullable().openapi({ description: 'The campaign a label was given in; null when given outside any (e.g. imported)' }),
    note: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('CampaignExportRow');
const CampaignExport = z.object({ campaign: z.string(), rows: z.array(ExportRow) }).openapi('CampaignExport');

const LabelsBody = z.object({ answerId: Fields.rowId, marks: z.array(CampaignMarkSchema).min(1).max(10_000) }).strict().openapi('CampaignLabels');
const AdjudicationBody = z.object({ answerId: Fields.rowId, unit: AdjudicationUnitSchema, label: z.union([Fields.label, z.boolean()]), note: Fields.note.optional() }).strict().openapi('AdjudicationBody');

const iso = <T extends { createdAt: Date }>(x: T) => ({ ...x, createdAt: x.createdAt.toISOString() });

export function registerCampaigns(api: Api): void {
  const { database } = api.deps;

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({ method: 'get', path: '/api/campaigns', operationId: 'listCampaigns', tags: ['campaigns'], summary: 'List annotation campaigns with their progress', responses: { 200: json('Campaigns', z.object({ campaigns: z.array(Summary) }).openapi('CampaignList')), ...errorResponses } }),
    handler: async (c) => c.json({ campaigns: (await listCampaigns(database)).map(iso) }, 200),
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'post',
      path: '/api/campaigns',
      operationId: 'createCampaign',
      tags: ['campaigns'],
      summary: 'Create a campaign: select the answers and queue them (disagreement, audit, rest); all or nothing',
      request: { body: { required: true, content: { 'application/json': { schema: CampaignSpecSchema, example: CAMPAIGN_EXAMPLE } } } },
      responses: { 201: json('The campaign and how many answers each reason queued', Created), ...errorResponses, ...conflict, ...bodyResponses },
    }),
    handler: async (c) => {
      const r = await createCampaign(database, c.req.valid('json'), 'body');
      return c.json({ id: r.id, name: r.name, overlap: r.overlap, annotators: r.annotators, adjudicators: r.adjudicators, queued: r.queued }, 201);
    },
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({ method: 'get', path: '/api/campaigns/{ref}', operationId: 'getCampaignProgress', tags: ['campaigns'], summary: 'Progress per annotator and per answer, in queue order', request: { params: Ref }, responses: { 200: json('Progress', Progress), ...errorResponses, ...notFoundResponse } }),
    handler: async (c) => c.json(await campaignProgress(database, c.req.valid('param').ref), 200),
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'get',
      path: '/api/campaigns/{ref}/disagreements',
      operationId: 'listCampaignDisagreements',
      tags: ['campaigns'],
      summary: 'Units (rubric items, the binary label) the annotators disagree on, with any final label',
      request: { params: Ref, query: z.object({ waiting: z.enum(['true', 'false']).optional().openapi({ description: 'true: only those without a final label' }) }) },
      responses: { 200: json('Disagreements', z.object({ disagreements: z.array(Disagreement) }).openapi('DisagreementList')), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => {
      const waiting = c.req.valid('query').waiting === 'true';
      return c.json({ disagreements: await campaignDisagreements(database, c.req.valid('param').ref, { waiting }) }, 200);
    },
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'get',
      path: '/api/campaigns/{ref}/export',
      operationId: 'exportCampaign',
      tags: ['campaigns'],
      summary: "Every label of the campaign's annotators and every adjudication (JSON, or CSV with Accept: text/csv)",
      request: { params: Ref },
      responses: { 200: jsonOrCsvResponse('The campaign name and its label rows (or the rows as CSV)', CampaignExport), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => {
      const r = await exportCampaign(database, c.req.valid('param').ref);
      c.header('Content-Disposition', `attachment; filename="campaign-${r.campaign.replace(/[^A-Za-z0-9._-]/g, '_')}-labels.${/text\/csv/i.test(c.req.header('accept') ?? '') ? 'csv' : 'json'}"`);
      return respondRows(c, r, EXPORT_COLUMNS);
    },
  });

  defineRoute(api, {
    scope: 'annotate',
    route: createRoute({
      method: 'get',
      path: '/api/campaigns/{ref}/next',
      operationId: 'getNextCampaignAnswer',
      tags: ['campaigns'],
      summary: "The key's next answer in the campaign (held but unfinished first, else taken now, never past k); null when done",
      request: { params: Ref },
      responses: { 200: json('The next answer and what its workspace shows', Next), ...errorResponses, ...notFoundResponse },
    }),
    handler: async (c) => c.json({ next: await nextForAnnotator(database, { campaign: c.req.valid('param').ref, annotator: c.get('caller').name }) }, 200),
  });

  defineRoute(api, {
    scope: 'annotate',
    route: createRoute({
      method: 'post',
      path: '/api/campaigns/{ref}/labels',
      operationId: 'saveCampaignLabels',
      tags: ['campaigns'],
      summary: "Save the key's labels of one campaign answer (any of the campaign's scales); all or nothing",
      request: { params: Ref, body: { required: true, content: { 'application/json': { schema: LabelsBody, example: CAMPAIGN_LABELS_EXAMPLE } } } },
      responses: { 200: json('{created, updated, unchanged, done}', LabelsSaved), ...errorResponses, ...notFoundResponse, ...conflict, ...bodyResponses },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      return c.json(await saveCampaignLabels(database, { campaign: c.req.valid('param').ref, answerId: b.answerId, annotator: c.get('caller').name, marks: b.marks }), 200);
    },
  });

  defineRoute(api, {
    scope: 'annotate',
    route: createRoute({
      method: 'post',
      path: '/api/campaigns/{ref}/adjudications',
      operationId: 'adjudicateCampaignUnit',
      tags: ['campaigns'],
      summary: "Record the final label of a disagreement (the key must be one of the campaign's adjudicators)",
      request: { params: Ref, body: { required: true, content: { 'application/json': { schema: AdjudicationBody, example: ADJUDICATION_EXAMPLE } } } },
      responses: { 200: json('The final label', Final.extend({ replaced: z.boolean() }).openapi('Adjudication')), ...errorResponses, ...notFoundResponse, ...bodyResponses },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      const caller = c.get('caller');
      return c.json(await adjudicate(database, { campaign: c.req.valid('param').ref, answerId: b.answerId, unit: b.unit, label: b.label, adjudicator: caller.name, authority: 'role', ...(b.note !== undefined ? { note: b.note } : {}) }), 200);
    },
  });
}
