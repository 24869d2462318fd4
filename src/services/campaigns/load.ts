import { asc, eq } from 'drizzle-orm';
import type { Database, Queryable } from '../../db/client.ts';
import { campaigns } from '../../db/schema.ts';
import { CampaignSpecSchema, type CampaignSpec } from '../../domain/campaigns.ts';
import { badInput, notFound } from '../../domain/errors.ts';
import { ROW_ID_TEXT } from '../../domain/limits.ts';

/** A stored campaign: its parsed spec and the key names its annotators and adjudicators resolved to. */
export interface Campaign {
  id: number;
  name: string;
  spec: CampaignSpec;
  overlap: number;
  annotators: string[];
  adjudicators: string[];
  createdAt: Date;
}

function toCampaign(r: typeof campaigns.$inferSelect): Campaign {
  // The stored spec was parsed on the way in; parsing again fills defaults a later version may add.
  return { id: r.id, name: r.name, spec: CampaignSpecSchema.parse(r.spec), overlap: r.overlap, annotators: r.annotators, adjudicators: r.adjudicators, createdAt: r.createdAt };
}

/** A campaign by id (a number or decimal digits) or by name; not found otherwise. */
export async function findCampaign(db: Queryable, ref: number | string): Promise<Campaign> {
  const asId = typeof ref === 'number' ? ref : ROW_ID_TEXT.test(ref) ? Number(ref) : null;
  if (asId !== null && (!Number.isSafeInteger(asId) || asId < 1 || asId > 2_147_483_647)) throw badInput(`campaign: id ${ref} is out of range`);
  const where = asId !== null ? eq(campaigns.id, asId) : eq(campaigns.name, String(ref));
  const [row] = await db.select().from(campaigns).where(where);
  if (!row) throw notFound(`campaign ${typeof ref === 'number' ? ref : `'${ref}'`} not found`);
  return toCampaign(row);
}

export async function getCampaign(database: Database, ref: number | string): Promise<Campaign> {
  return findCampaign(database.db, ref);
}

export interface CampaignSummary {
  id: number;
  name: string;
  overlap: number;
  annotators: string[];
  answers: number;
  /** Answers holding k annotators who have all finished. */
  complete: number;
  createdAt: Date;
}

export async function listCampaigns(database: Database): Promise<CampaignSummary[]> {
  const rows = await database.db.select().from(campaigns).orderBy(asc(campaigns.id));
  const counts = await database.execute(
    `select ca.campaign_id as id, count(*)::int as answers,
            count(*) filter (where (select count(*) from campaign_assignments x
                                     where x.campaign_id = ca.campaign_id and x.answer_id = ca.answer_id and x.done_at is not null) >= c.overlap)::int as complete
       from campaign_answers ca join campaigns c on c.id = ca.campaign_id group by ca.campaign_id`,
  );
  const by = new Map(counts.rows.map((r) => [Number(r.id), { answers: Number(r.answers), complete: Number(r.complete) }]));
  return rows.map((r) => ({ id: r.id, name: r.name, overlap: r.overlap, annotators: r.annotators, answers: by.get(r.id)?.answers ?? 0, complete: by.get(r.id)?.complete ?? 0, createdAt: r.createdAt }));
}
