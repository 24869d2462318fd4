import type { Command } from '../command.ts';
import { badInput } from '../../domain/errors.ts';
import { Fields } from '../../domain/fields.ts';
import { parseRowId } from '../../domain/limits.ts';
import { withDatabase } from '../database.ts';
import { fieldFlag, requireFlag } from '../io.ts';
import { readStructured } from '../read-structured.ts';
import { table } from '../table.ts';

/** Annotation campaigns (docs/annotation.md): who labels which answers, on which scales, k per answer. */

function oneCampaign(positionals: string[]): string {
  if (positionals.length !== 1) throw badInput('expected exactly one campaign (its name or id; see assay campaign list)');
  const ref = positionals[0]!;
  const r = Fields.keyName.safeParse(ref);
  if (!r.success) throw badInput(`campaign: ${r.error.issues[0]!.message}`);
  return ref;
}

const create: Command = {
  path: ['campaign', 'create'],
  summary: 'Create an annotation campaign from a spec file (answers, scales, annotators, overlap k, order)',
  usage: 'SPEC.yaml|SPEC.json',
  options: {},
  positionals: true,
  async run({ positionals }) {
    if (positionals.length !== 1) throw badInput('expected exactly one campaign spec file');
    const raw = readStructured(positionals[0]!, 'campaign spec');
    const { createCampaign } = await import('../../services/campaigns/index.ts');
    const c = await withDatabase((d) => createCampaign(d, raw, positionals[0]!));
    const n = c.queued.disagreement + c.queued.audit + c.queued.rest;
    return {
      json: c,
      text: `campaign ${c.id} '${c.name}': ${n} answers queued (${c.queued.disagreement} disagreement, ${c.queued.audit} audit, ${c.queued.rest} rest), k = ${c.overlap}, annotators ${c.annotators.join(', ')}`,
    };
  },
};

const list: Command = {
  path: ['campaign', 'list'],
  summary: 'List annotation campaigns with their progress',
  usage: '',
  options: {},
  async run() {
    const { listCampaigns } = await import('../../services/campaigns/index.ts');
    const campaigns = await withDatabase((d) => listCampaigns(d));
    return {
      json: { campaigns },
      text: table(['id', 'name', 'k', 'annotators', 'answers', 'complete'], campaigns.map((c) => [c.id, c.name, c.overlap, c.annotators.join(','), c.answers, c.complete])),
    };
  },
};

const show: Command = {
  path: ['campaign', 'show'],
  summary: 'Progress of a campaign per annotator and per answer, and the disagreements waiting for adjudication',
  usage: 'CAMPAIGN',
  options: {},
  positionals: true,
  async run({ positionals }) {
    const ref = oneCampaign(positionals);
    const { campaignProgress, campaignDisagreements } = await import('../../services/campaigns/index.ts');
    const [progress, disagreements] = await withDatabase(async (d) => [await campaignProgress(d, ref), await campaignDisagreements(d, ref)] as const);
    const waiting = disagreements.filter((x) => x.adjudication === null);
    const text = [
      `campaign ${progress.campaign.id} '${progress.campaign.name}': ${progress.complete} of ${progress.answers} answers complete (k = ${progress.campaign.overlap})`,
      '',
      table(['annotator', 'assigned', 'done'], progress.annotators.map((a) => [a.name, a.assigned, a.done])),
      '',
      table(['rank', 'answer id', 'answer', 'why', 'annotators'], progress.perAnswer.map((a) => [a.rank, a.answerId, a.answer, a.reason, a.annotators.map((h) => `${h.name}${h.done ? '' : '…'}`).join(' ')])),
      '',
      waiting.length === 0
        ? 'no disagreements waiting for adjudication'
        : `${waiting.length} disagreement(s) waiting for adjudication\n${table(['answer id', 'unit', 'labels'], waiting.map((w) => [w.answerId, w.unit, w.labels.map((l) => `${l.annotator}=${l.label}`).join(' ')]))}`,
    ].join('\n');
    return { json: { ...progress, disagreements }, text };
  },
};

const exportCmd: Command = {
  path: ['campaign', 'export'],
  summary: "Every label of a campaign's annotators and its adjudications, as CSV (or JSON with --json)",
  usage: 'CAMPAIGN',
  options: {},
  positionals: true,
  async run({ positionals }) {
    const ref = oneCampaign(positionals);
    const { exportCampaign, EXPORT_COLUMNS } = await import('../../services/campaigns/index.ts');
    const { toCsv } = await import('../../api/csv.ts');
    const r = await withDatabase((d) => exportCampaign(d, ref));
    return { json: r, text: toCsv(r.rows as unknown as Record<string, unknown>[], EXPORT_COLUMNS).replace(/\r\n$/, '') };
  },
};

const adjudicateCmd: Command = {
  path: ['campaign', 'adjudicate'],
  summary: 'Record the final label of a unit the annotators disagree on (kept apart from their labels)',
  usage: 'CAMPAIGN --answer ID --unit ITEM|answer:binary --label L --adjudicator NAME [--note N]',
  options: { answer: { type: 'string' }, unit: { type: 'string' }, label: { type: 'string' }, adjudicator: { type: 'string' }, note: { type: 'string' } },
  positionals: true,
  async run({ positionals, values }) {
    const ref = oneCampaign(positionals);
    const answerId = parseRowId(requireFlag(values, 'answer'), '--answer');
    const unit = requireFlag(values, 'unit');
    const label = requireFlag(values, 'label');
    const adjudicator = fieldFlag(values, 'adjudicator', Fields.annotator) ?? requireFlag(values, 'adjudicator');
    const note = fieldFlag(values, 'note', Fields.note);
    const { AdjudicationUnitSchema } = await import('../../domain/campaigns.ts');
    if (!AdjudicationUnitSchema.safeParse(unit).success) throw badInput(`--unit must be a rubric item id or answer:binary, got '${unit.slice(0, 60)}'`);
    const { adjudicate } = await import('../../services/campaigns/index.ts');
    // The local operator holds the database: the CLI adjudicates with an admin's authority.
    const r = await withDatabase((d) => adjudicate(d, { campaign: ref, answerId, unit, label, adjudicator, authority: 'admin', ...(note !== undefined ? { note } : {}) }));
    return { json: r, text: `${r.replaced ? 'replaced' : 'recorded'} final label ${r.label} for answer ${r.answerId} ${r.unit} (by ${r.adjudicator})` };
  },
};

export default [create, list, show, exportCmd, adjudicateCmd];
