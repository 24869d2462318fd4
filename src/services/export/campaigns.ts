import { and, asc, eq, inArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { adjudications, answers, campaignAnswers, campaignAssignments, campaigns, labels } from '../../db/schema.ts';

/**
 * The campaigns of a run export (`campaigns.jsonl`): every campaign that holds one of the run's answers or
 * whose labels are on them — its definition (name, spec, k, annotators, adjudicators) and its part in this
 * run: the run's answers in its queue (rank, reason, holders), who holds them, and the final labels given
 * on them. Without it an export's campaign labels could only land in a campaign of the same name that
 * holds none of these answers, where no campaign page counts them (campaign-labels.ts reads holders).
 */

export interface ExportedCampaign {
  name: string;
  spec: Record<string, unknown>;
  overlap: number;
  annotators: string[];
  adjudicators: string[];
  created_at: string;
  answers: Array<{ answer: string; rank: number; reason: string; assigned: number }>;
  assignments: Array<{ answer: string; annotator: string; assigned_at: string; done_at: string | null }>;
  adjudications: Array<{ answer: string; item: string; label: string; adjudicator: string; note: string | null; created_at: string }>;
}

/** A timestamp as ISO text to the microsecond (UTC), as the database holds it: a Date keeps milliseconds. */
const isoUs = (column: AnyColumn): SQL<string> => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Read in the export's snapshot transaction; external: the run's answer ids → their external ids. */
export async function readRunCampaigns(tx: Queryable, runId: number, external: ReadonlyMap<number, string>): Promise<ExportedCampaign[]> {
  const ofRun = () => tx.select({ id: answers.id }).from(answers).where(eq(answers.runId, runId));
  const rows = await tx
    .select({ c: campaigns, createdAt: isoUs(campaigns.createdAt) })
    .from(campaigns)
    .where(
      or(
        inArray(campaigns.id, tx.select({ id: campaignAnswers.campaignId }).from(campaignAnswers).where(inArray(campaignAnswers.answerId, ofRun()))),
        inArray(campaigns.id, tx.select({ id: labels.campaignId }).from(labels).where(inArray(labels.answerId, ofRun()))),
      ),
    )
    .orderBy(asc(campaigns.name));
  const out: ExportedCampaign[] = [];
  for (const { c, createdAt } of rows) {
    const members = await tx.select().from(campaignAnswers).where(and(eq(campaignAnswers.campaignId, c.id), inArray(campaignAnswers.answerId, ofRun()))).orderBy(asc(campaignAnswers.rank));
    const holders = await tx
      .select({ h: campaignAssignments, assignedAt: isoUs(campaignAssignments.assignedAt), doneAt: sql<string | null>`case when ${campaignAssignments.doneAt} is null then null else ${isoUs(campaignAssignments.doneAt)} end` })
      .from(campaignAssignments)
      .where(and(eq(campaignAssignments.campaignId, c.id), inArray(campaignAssignments.answerId, ofRun())))
      .orderBy(asc(campaignAssignments.answerId), asc(campaignAssignments.annotator));
    const finals = await tx
      .select({ f: adjudications, createdAt: isoUs(adjudications.createdAt) })
      .from(adjudications)
      .where(and(eq(adjudications.campaignId, c.id), inArray(adjudications.answerId, ofRun())))
      .orderBy(asc(adjudications.answerId), asc(adjudications.itemKey));
    out.push({
      name: c.name,
      spec: c.spec,
      overlap: c.overlap,
      annotators: c.annotators,
      adjudicators: c.adjudicators,
      created_at: createdAt,
      answers: members.map((m) => ({ answer: external.get(m.answerId)!, rank: m.rank, reason: m.reason, assigned: m.assigned })),
      assignments: holders.map(({ h, assignedAt, doneAt }) => ({ answer: external.get(h.answerId)!, annotator: h.annotator, assigned_at: assignedAt, done_at: doneAt })),
      adjudications: finals.map(({ f, createdAt: at }) => ({ answer: external.get(f.answerId)!, item: f.itemKey, label: f.label, adjudicator: f.adjudicator, note: f.note, created_at: at })),
    });
  }
  return out;
}

