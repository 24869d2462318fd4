import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { adjudications } from '../../db/schema.ts';
import { ANSWER_SCALE_KEYS } from '../../domain/campaigns.ts';
import { AssayError, badInput } from '../../domain/errors.ts';
import { Fields } from '../../domain/fields.ts';
import { SCALES } from '../../domain/labels.ts';
import { campaignAdjudications, campaignLabels, type Adjudication } from './campaign-labels.ts';
import { findDisagreements } from './disagreements.ts';
import { findCampaign } from './load.ts';

export interface AdjudicationInput {
  campaign: number | string;
  answerId: number;
  /** A rubric item id, or `answer:binary`. */
  unit: string;
  label: string | boolean;
  adjudicator: string;
  note?: string;
  /**
   * Who vouches for the adjudicator: 'role' — they must be one of the campaign's adjudicators (an
   * annotate key); 'admin' — an admin key or the local operator (the CLI), who may always adjudicate.
   */
  authority: 'role' | 'admin';
}

/** The stored final label on the unit's scale: a verdict for an item, true|false for the binary label. */
function finalLabel(unit: string, label: string | boolean): string {
  const scale = unit === ANSWER_SCALE_KEYS.binary ? 'binary' : 'verdict';
  const n = SCALES[scale].normalise(label);
  if (!n) throw badInput(`label: ${JSON.stringify(label)} is not valid for ${unit} (expected ${SCALES[scale].accepts})`);
  return String(n.category);
}

/**
 * Records the final label of a unit the annotators disagree on, apart from their own labels (a later
 * adjudication of the same unit replaces it). A unit without a disagreement is bad input: there is
 * nothing to settle, and a final label there would silently overrule agreeing annotators.
 */
export async function adjudicate(database: Database, input: AdjudicationInput): Promise<Adjudication & { replaced: boolean }> {
  const label = finalLabel(input.unit, input.label);
  for (const [field, value, schema] of [['adjudicator', input.adjudicator, Fields.annotator], ['note', input.note, Fields.note]] as const) {
    const r = value === undefined ? null : schema.safeParse(value);
    if (r && !r.success) throw badInput(`${field}: ${r.error.issues[0]!.message}`);
  }
  return database.db.transaction(async (tx) => {
    const campaign = await findCampaign(tx, input.campaign);
    if (input.authority === 'role' && !campaign.adjudicators.includes(input.adjudicator)) {
      throw new AssayError('forbidden', `campaign '${campaign.name}': '${input.adjudicator}' is not one of its adjudicators`);
    }
    const open = findDisagreements(campaign, await campaignLabels(tx, campaign), await campaignAdjudications(tx, campaign));
    if (!open.some((d) => d.answerId === input.answerId && d.unit === input.unit)) {
      throw badInput(`campaign '${campaign.name}': answer ${input.answerId} unit '${input.unit}' has no disagreement to adjudicate`);
    }
    const [row] = await tx
      .insert(adjudications)
      .values({ campaignId: campaign.id, answerId: input.answerId, itemKey: input.unit, label, adjudicator: input.adjudicator, note: input.note ?? null })
      .onConflictDoUpdate({
        target: [adjudications.campaignId, adjudications.answerId, adjudications.itemKey],
        set: { label: sql`excluded.label`, adjudicator: sql`excluded.adjudicator`, note: sql`excluded.note`, createdAt: sql`now()` },
      })
      .returning({ createdAt: adjudications.createdAt, inserted: sql<boolean>`(xmax = 0)` });
    return {
      answerId: input.answerId,
      unit: input.unit,
      label,
      adjudicator: input.adjudicator,
      note: input.note ?? null,
      createdAt: row!.createdAt.toISOString(),
      replaced: !row!.inserted,
    };
  });
}
