import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { answers, labels } from '../db/schema.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { CLAIM_PREFIX, splitClaims } from './annotation-claims.ts';
import { claimStanding, type ClaimStanding } from './claim-marks.ts';

export interface StaleClaim {
  index: number;
  label: string;
  /** 'moved': given on another sentence; 'out_of_range': the answer has no sentence n today. */
  reason: 'moved' | 'out_of_range';
}

/**
 * The annotator's labels of one answer as the workspace shows them: without a campaign their plain labels;
 * in a campaign (its row id) that campaign's, and a plain label where the campaign has none of theirs
 * (the rule of campaigns/campaign-labels.ts), never another campaign's.
 */
export async function annotatorLabels(
  database: Database,
  answerId: number,
  annotator: string,
  campaignId: number | null = null,
): Promise<{
  answerId: number;
  annotator: string;
  items: Record<string, string>;
  /** Claim marks resolved against today's split (claim-marks.ts): only those not stale. */
  claims: Record<number, string>;
  claimSentences: Record<number, Exclude<ClaimStanding, 'stale'>>;
  staleClaims: StaleClaim[];
  binary?: string;
  numeric?: string;
}> {
  const context = campaignId === null ? isNull(labels.campaignId) : or(eq(labels.campaignId, campaignId), isNull(labels.campaignId));
  const rows = await database.db
    .select({ item: labels.itemKey, label: labels.label, sentence: labels.claimSentence })
    .from(labels)
    .where(and(eq(labels.answerId, answerId), eq(labels.annotator, annotator), eq(labels.kind, 'human'), context))
    // The campaign's own label last, so it stands over a plain one of the same unit below.
    .orderBy(sql`${labels.campaignId} nulls first`);
  // No prototype: item ids are slugs, and `constructor` or `toString` must read as unlabelled, not as Object's own.
  const items: Record<string, string> = Object.create(null) as Record<string, string>;
  const claims: Record<number, string> = {};
  const claimSentences: Record<number, Exclude<ClaimStanding, 'stale'>> = {};
  const stale = new Map<number, StaleClaim>();
  const whole: { binary?: string; numeric?: string } = {};
  const sentences = rows.some((r) => r.item.startsWith(CLAIM_PREFIX)) ? splitClaims((await database.db.select({ text: answers.text }).from(answers).where(eq(answers.id, answerId)))[0]?.text ?? '') : [];
  for (const r of rows) {
    if (r.item.startsWith(CLAIM_PREFIX)) {
      // Resolved against today's split: a mark given on another sentence is stale, never this sentence's label.
      const index = Number(r.item.slice(CLAIM_PREFIX.length));
      const standing = claimStanding(index, r.sentence, sentences);
      if (standing === 'stale') {
        stale.set(index, { index, label: r.label, reason: index >= sentences.length ? 'out_of_range' : 'moved' });
        delete claims[index];
        delete claimSentences[index];
      } else {
        claims[index] = r.label;
        claimSentences[index] = standing;
        stale.delete(index);
      }
    }
    else if (r.item === ANSWER_SCALE_KEYS.binary) whole.binary = r.label;
    else if (r.item === ANSWER_SCALE_KEYS.numeric) whole.numeric = r.label;
    else if (r.item !== '') items[r.item] = r.label;
  }
  return { answerId, annotator, items, claims, claimSentences, staleClaims: [...stale.values()].sort((x, y) => x.index - y.index), ...whole };
}
