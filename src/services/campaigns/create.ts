import type { Database } from '../../db/client.ts';
import { campaignAnswers, campaigns } from '../../db/schema.ts';
import { CampaignSpecSchema, type CampaignSpec } from '../../domain/campaigns.ts';
import { AssayError, badInput } from '../../domain/errors.ts';
import { firstIssue } from '../../domain/labels.ts';
import { ROW_ID_TEXT } from '../../domain/limits.ts';
import { isUniqueViolation } from '../db-errors.ts';
import { findCampaign, type Campaign } from './load.ts';
import { campaignOrder } from './order.ts';
import { resolveAnnotators } from './resolve.ts';
import { disagreeingAnswers, namedButUnselected, selectAnswers, selectorSaid } from './selection.ts';

/** Parses a spec (a file's document or a request body) or throws bad input naming the first problem. */
export function parseCampaignSpec(raw: unknown, source = 'campaign'): CampaignSpec {
  const parsed = CampaignSpecSchema.safeParse(raw);
  if (!parsed.success) throw badInput(`${source}: ${firstIssue(parsed.error)}`);
  // A reference (/api/campaigns/{ref}, `assay campaign … REF`, /campaigns/{name}) reads digits as the id
  // (load.ts): a campaign named '1' could not be reached by its name, and what was sent to it went to campaign 1.
  if (ROW_ID_TEXT.test(parsed.data.name)) {
    throw badInput(`${source}: name: '${parsed.data.name}' is digits only, which a campaign reference reads as an id; give the name a letter or another sign`);
  }
  return parsed.data;
}

export interface CreatedCampaign extends Campaign {
  queued: { disagreement: number; audit: number; rest: number };
}

const ROWS_PER_INSERT = 1000;

/**
 * Creates a campaign: validates the spec, resolves its annotators to the names they label as, selects
 * the answers and stores them in queue order (disagreement, audit, rest), all in one transaction — a
 * spec that selects nothing, or a name already taken, writes nothing.
 */
export async function createCampaign(database: Database, raw: unknown, source?: string): Promise<CreatedCampaign> {
  const spec = parseCampaignSpec(raw, source);
  try {
    return await database.db.transaction(async (tx) => {
      const annotators = await resolveAnnotators(tx, spec.annotators, 'annotators');
      const adjudicators = await resolveAnnotators(tx, spec.adjudicators, 'adjudicators');
      const ids = await selectAnswers(tx, spec);
      if (ids.length === 0) throw badInput(`campaign '${spec.name}': the answers selector matches no answer with text${spec.scales.verdict ? ' and a rubric' : ''}`);
      const missing = ids.length === 0 ? [] : await namedButUnselected(tx, spec, ids);
      if (missing.length > 0) {
        const shown = missing.slice(0, 5).map((n) => `'${n}'`).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
        throw badInput(`campaign '${spec.name}': answers.filter.answers: ${shown} ${missing.length === 1 ? 'matches' : 'match'} no answer the selector takes (${selectorSaid(spec)}); nothing created`);
      }
      const disagreeing = spec.order.disagreementFirst ? await disagreeingAnswers(tx, ids) : new Set<number>();
      const order = campaignOrder(ids, disagreeing, spec.order);
      const [row] = await tx
        .insert(campaigns)
        .values({ name: spec.name, spec: spec as unknown as Record<string, unknown>, overlap: spec.overlap, annotators, adjudicators })
        .returning({ id: campaigns.id });
      for (let i = 0; i < order.length; i += ROWS_PER_INSERT) {
        await tx.insert(campaignAnswers).values(order.slice(i, i + ROWS_PER_INSERT).map((q) => ({ campaignId: row!.id, ...q })));
      }
      const count = (reason: string) => order.filter((q) => q.reason === reason).length;
      return { ...(await findCampaign(tx, row!.id)), queued: { disagreement: count('disagreement'), audit: count('audit'), rest: count('rest') } };
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AssayError('conflict', `campaign '${spec.name}' already exists`);
    throw e;
  }
}
