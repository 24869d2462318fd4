import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Queryable } from '../db/client.ts';
import { adjudications, campaignAnswers, campaignAssignments, campaigns } from '../db/schema.ts';
import { CampaignSpecSchema, QUEUE_REASONS } from '../domain/campaigns.ts';
import { AssayError } from '../domain/errors.ts';
import { firstIssue } from '../domain/labels.ts';
import { ROW_ID_TEXT } from '../domain/limits.ts';
import { parseJsonl, parseLocated, type ImportFile, type Located } from './import-parse.ts';

/**
 * campaigns.jsonl of a run export (export/campaigns.ts) back into a database, before its labels:
 * - a campaign the database lacks is created as exported: its definition, the run's answers in its queue
 *   (their ranks, reasons and holders) and the final labels given on them;
 * - one it holds under that name must be the same campaign (spec, k, annotators, adjudicators), else the
 *   import is refused: its labels would join another team's campaign. The run's answers it does not hold
 *   yet join its queue after its last (in the export's order); those it holds must have the exported
 *   holders and final labels, or the import is refused — a campaign's queue is never silently rewritten.
 * Exports written before this file have none: their campaign labels need the campaign (import-export-labels.ts).
 */

const iso = z.iso.datetime({ offset: true });
const CampaignLine = z.strictObject({
  name: z.string().min(1),
  spec: z.record(z.string(), z.unknown()),
  overlap: z.number().int().min(1),
  annotators: z.array(z.string().min(1)),
  adjudicators: z.array(z.string().min(1)),
  created_at: iso,
  answers: z.array(z.strictObject({ answer: z.string().min(1), rank: z.number().int().min(0), reason: z.enum(QUEUE_REASONS), assigned: z.number().int().min(0) })),
  assignments: z.array(z.strictObject({ answer: z.string().min(1), annotator: z.string().min(1), assigned_at: iso, done_at: iso.nullable() })),
  adjudications: z.array(z.strictObject({ answer: z.string().min(1), item: z.string(), label: z.string().min(1), adjudicator: z.string().min(1), note: z.string().nullable(), created_at: iso })),
});
export type CampaignLine = z.output<typeof CampaignLine>;

export function parseExportCampaigns(file: ImportFile): Array<{ loc: Located; c: CampaignLine }> {
  return parseJsonl(file).map((loc) => ({ loc, c: parseLocated(CampaignLine, loc) }));
}

export interface CampaignImportResult {
  created: number;
  unchanged: number;
  /** Answers of the run added to the queue of a campaign the database held. */
  queued: number;
}

const refuse = (loc: Located, message: string) => new AssayError('conflict', `${loc.file}:${loc.line}: ${message}; nothing written`);
const sameJson = (a: unknown, b: unknown) => sql<boolean>`${JSON.stringify(a)}::jsonb = ${JSON.stringify(b)}::jsonb`;
/** An exported time read by the database to the microsecond (a Date keeps milliseconds). */
const at = (text: string) => sql`${text}::timestamptz`;
const time = (d: Date | null) => (d === null ? null : d.toISOString());
const msEqual = (a: Date | null, b: string | null) => (a === null || b === null ? a === b : a.getTime() === new Date(b).getTime());

/**
 * Every read of a campaign parses its stored spec (campaigns/load.ts), and its k is the row's overlap: a
 * spec that does not parse, or a line whose name or k is not its spec's, was stored (exit 0) as a campaign
 * no page or route could then open, or one with a k createCampaign refuses. The line is bad input instead.
 */
function checkSpec(loc: Located, c: CampaignLine): void {
  const where = `${loc.file}:${loc.line}: campaign '${c.name}'`;
  // As createCampaign refuses it: a reference reads digits as the id, so the campaign could not be named.
  if (ROW_ID_TEXT.test(c.name)) throw new AssayError('bad_input', `${where}: name: digits only, which a campaign reference reads as an id; nothing written`);
  const spec = CampaignSpecSchema.safeParse(c.spec);
  if (!spec.success) throw new AssayError('bad_input', `${where}: spec: ${firstIssue(spec.error)}; nothing written`);
  if (spec.data.name !== c.name) throw new AssayError('bad_input', `${where}: its spec names '${spec.data.name}'; nothing written`);
  if (spec.data.overlap !== c.overlap) throw new AssayError('bad_input', `${where}: overlap ${c.overlap}, but its spec says ${spec.data.overlap}; nothing written`);
}

/** In the import's transaction; answerIds: the export's answer ids → the target's row ids (every one in answers.jsonl). */
export async function storeExportCampaigns(tx: Queryable, lines: Array<{ loc: Located; c: CampaignLine }>, answerIds: ReadonlyMap<string, number>): Promise<CampaignImportResult> {
  const result: CampaignImportResult = { created: 0, unchanged: 0, queued: 0 };
  for (const { loc, c } of lines) {
    const id = (answer: string) => {
      const a = answerIds.get(answer);
      if (a === undefined) throw new AssayError('bad_input', `${loc.file}:${loc.line}: campaign '${c.name}': '${answer}' is not an answer in answers.jsonl`);
      return a;
    };
    // Holders and final labels of answers the export does not queue in the campaign: nothing to attach them to.
    const queued = new Set(c.answers.map((m) => m.answer));
    const stray = [...c.assignments, ...c.adjudications].find((x) => !queued.has(x.answer));
    if (stray) throw new AssayError('bad_input', `${loc.file}:${loc.line}: campaign '${c.name}': answer '${stray.answer}' has holders or final labels but is not in its answers`);
    checkSpec(loc, c);
    const [held] = await tx.select().from(campaigns).where(eq(campaigns.name, c.name));
    if (!held) {
      const [row] = await tx
        .insert(campaigns)
        .values({ name: c.name, spec: c.spec, overlap: c.overlap, annotators: c.annotators, adjudicators: c.adjudicators, createdAt: at(c.created_at) })
        .returning({ id: campaigns.id });
      const cid = row!.id;
      if (c.answers.length) await tx.insert(campaignAnswers).values(c.answers.map((m) => ({ campaignId: cid, answerId: id(m.answer), rank: m.rank, reason: m.reason, assigned: m.assigned })));
      if (c.assignments.length) await tx.insert(campaignAssignments).values(c.assignments.map((h) => ({ campaignId: cid, answerId: id(h.answer), annotator: h.annotator, assignedAt: at(h.assigned_at), doneAt: h.done_at === null ? null : at(h.done_at) })));
      if (c.adjudications.length) {
        await tx.insert(adjudications).values(c.adjudications.map((f) => ({ campaignId: cid, answerId: id(f.answer), itemKey: f.item, label: f.label, adjudicator: f.adjudicator, note: f.note, createdAt: at(f.created_at) })));
      }
      result.created++;
      continue;
    }
    const [same] = await tx
      .select({ spec: sameJson(held.spec, c.spec), annotators: sameJson(held.annotators, c.annotators), adjudicators: sameJson(held.adjudicators, c.adjudicators) })
      .from(sql`(select 1) as one`);
    const differs = [!same!.spec && 'spec', held.overlap !== c.overlap && 'overlap', !same!.annotators && 'annotators', !same!.adjudicators && 'adjudicators'].filter(Boolean);
    if (differs.length) throw refuse(loc, `this database holds another campaign named '${c.name}' (its ${differs.join(', ')} differ${differs.length === 1 ? 's' : ''}); an import does not merge two campaigns — rename one`);
    const members = new Map((await tx.select().from(campaignAnswers).where(eq(campaignAnswers.campaignId, held.id))).map((m) => [m.answerId, m]));
    const holders = await tx.select().from(campaignAssignments).where(eq(campaignAssignments.campaignId, held.id));
    const finals = await tx.select().from(adjudications).where(eq(adjudications.campaignId, held.id));
    let rank = Math.max(-1, ...[...members.values()].map((m) => m.rank)) + 1;
    let added = 0;
    for (const m of c.answers) {
      const answerId = id(m.answer);
      const exported = c.assignments.filter((h) => h.answer === m.answer);
      const mine = c.adjudications.filter((f) => f.answer === m.answer);
      const stored = members.get(answerId);
      if (!stored) {
        await tx.insert(campaignAnswers).values({ campaignId: held.id, answerId, rank: rank++, reason: m.reason, assigned: m.assigned });
        if (exported.length) await tx.insert(campaignAssignments).values(exported.map((h) => ({ campaignId: held.id, answerId, annotator: h.annotator, assignedAt: at(h.assigned_at), doneAt: h.done_at === null ? null : at(h.done_at) })));
        if (mine.length) await tx.insert(adjudications).values(mine.map((f) => ({ campaignId: held.id, answerId, itemKey: f.item, label: f.label, adjudicator: f.adjudicator, note: f.note, createdAt: at(f.created_at) })));
        added++;
        continue;
      }
      const theirs = holders.filter((h) => h.answerId === answerId);
      const holdersSame = theirs.length === exported.length && exported.every((h) => theirs.some((t) => t.annotator === h.annotator && msEqual(t.doneAt, h.done_at)));
      const storedFinals = finals.filter((f) => f.answerId === answerId);
      const finalsSame = storedFinals.length === mine.length && mine.every((f) => storedFinals.some((s) => s.itemKey === f.item && s.label === f.label && s.adjudicator === f.adjudicator && s.note === f.note));
      if (!holdersSame || !finalsSame) {
        const what = !holdersSame
          ? `holders ${theirs.map((t) => `${t.annotator}${t.doneAt ? ` (done ${time(t.doneAt)})` : ''}`).join(', ') || 'none'}, the export says ${exported.map((h) => `${h.annotator}${h.done_at ? ` (done ${h.done_at})` : ''}`).join(', ') || 'none'}`
          : 'other final labels';
        throw refuse(loc, `campaign '${c.name}' holds answer '${m.answer}' with ${what}; an import does not rewrite a campaign's queue`);
      }
    }
    result.queued += added;
    if (added === 0) result.unchanged++;
  }
  return result;
}

