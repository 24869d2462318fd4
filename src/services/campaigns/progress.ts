import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import type { QueueReason } from '../../domain/campaigns.ts';
import { findCampaign } from './load.ts';
import { rowsOf } from './sql.ts';
import { refreshDone } from './units.ts';

export interface AnswerProgress {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  rank: number;
  reason: QueueReason;
  /** Annotators holding the answer and whether each has finished it. */
  annotators: Array<{ name: string; done: boolean }>;
  done: number;
  complete: boolean;
}

export interface CampaignProgress {
  campaign: { id: number; name: string; overlap: number };
  answers: number;
  /** Answers with k finished annotators. */
  complete: number;
  annotators: Array<{ name: string; assigned: number; done: number }>;
  perAnswer: AnswerProgress[];
}

/** Progress per annotator and per answer, in queue order. Done is read from the labels (units.ts). */
export async function campaignProgress(database: Database, ref: number | string): Promise<CampaignProgress> {
  return database.db.transaction(async (tx) => {
    const campaign = await findCampaign(tx, ref);
    for (const a of campaign.annotators) await refreshDone(tx, campaign, a);
    const rows = await rowsOf<{ answerId: number; answer: string; run: string; model: string; rank: number; reason: QueueReason; holders: unknown }>(
      tx,
      sql`select ca.answer_id as "answerId", a.external_id as answer, r.name as run, r.model, ca.rank, ca.reason,
                 coalesce((select json_agg(json_build_array(x.annotator, x.done_at is not null) order by x.assigned_at, x.annotator)
                             from campaign_assignments x where x.campaign_id = ca.campaign_id and x.answer_id = ca.answer_id), '[]'::json)::text as holders
            from campaign_answers ca join answers a on a.id = ca.answer_id join runs r on r.id = a.run_id
           where ca.campaign_id = ${campaign.id} order by ca.rank`,
    );
    const perAnswer = rows.map((r): AnswerProgress => {
      const holders = (typeof r.holders === 'string' ? JSON.parse(r.holders) : r.holders) as Array<[string, boolean]>;
      const done = holders.filter(([, d]) => d).length;
      return {
        answerId: Number(r.answerId),
        answer: r.answer,
        run: r.run,
        model: r.model,
        rank: Number(r.rank),
        reason: r.reason,
        annotators: holders.map(([name, d]) => ({ name, done: d })),
        done,
        complete: done >= campaign.overlap,
      };
    });
    const annotators = campaign.annotators.map((name) => {
      const held = perAnswer.flatMap((p) => p.annotators.filter((h) => h.name === name));
      return { name, assigned: held.length, done: held.filter((h) => h.done).length };
    });
    return {
      campaign: { id: campaign.id, name: campaign.name, overlap: campaign.overlap },
      answers: perAnswer.length,
      complete: perAnswer.filter((p) => p.complete).length,
      annotators,
      perAnswer,
    };
  });
}
