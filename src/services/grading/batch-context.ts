import type { Database } from '../../db/client.ts';
import { badInput } from '../../domain/errors.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { type LoadedJudge, sha256 } from '../../judges/config.ts';
import { outputJsonSchema } from '../../judges/contract.ts';
import type { PriceTable } from '../../judges/prices.ts';
import type { BatchClient, BatchItem } from '../../judges/batch/types.ts';
import type { JudgeRequest } from '../../judges/types.ts';
import { getAnswer } from '../answers.ts';
import { getRubric, toRubric } from '../rubrics.ts';
import type { BatchJudge } from './batch-judge.ts';
import type { GradingSession } from './session.ts';

/** What one `assay run --batch` call (batch.ts) shares with its submission (batch-submit.ts) and collection (batch-collect.ts). */

/** What a call did: provider batches created and found again, answers graded and failed, items resubmitted. */
export interface BatchCounts {
  created: number;
  adopted: number;
  graded: number;
  failed: number;
  resubmitted: number;
}

export interface BatchContext {
  database: Database;
  judge: LoadedJudge;
  run: { id: number; name: string };
  judgeId: number;
  client: BatchClient;
  session: GradingSession;
  batch: BatchJudge;
  out: BatchCounts;
  /** Rows written by this call: they cannot have a provider batch yet (no reconciliation lookup). */
  freshRows: Set<number>;
  /** The price table at the batch discount (what a batched line costs). */
  discounted: PriceTable;
  /** How much earlier than its intent row a provider batch may look (clock skew), for Anthropic matching. */
  skewMs: number;
  hooks?: { afterIntent?(rowId: number): void | Promise<void>; afterCreate?(rowId: number, providerBatchId: string): void | Promise<void> };
}

/** A grade's status counted: provider_error is a failure, any other status a grade. */
export const tally = (out: BatchCounts, g: { status: string }): void => {
  if (g.status === 'provider_error') out.failed++;
  else out.graded++;
};

/**
 * A rubric's latest version, read once per slug by each reader (one submission, one collection): never
 * kept longer, since a batch can take hours.
 */
export function rubricReader(database: Database): (slug: string) => Promise<Rubric> {
  const rubrics = new Map<string, Promise<Rubric>>();
  return (slug: string): Promise<Rubric> => {
    let r = rubrics.get(slug);
    if (!r) rubrics.set(slug, (r = getRubric(database, slug).then(toRubric)));
    return r;
  };
}

/** The request of an answer as it is now (its text, its rubric's latest version), under `customId`. */
export async function itemFor(ctx: BatchContext, customId: string, answerId: number, rubrics: (slug: string) => Promise<Rubric>): Promise<BatchItem> {
  const cfg = ctx.judge.config;
  const a = await getAnswer(ctx.database, answerId);
  if (!a.rubric) throw badInput(`answer ${answerId}: names no rubric`);
  const rubric = await rubrics(a.rubric);
  const text = a.text ?? '';
  const req: JudgeRequest = {
    mode: cfg.mode,
    rubric,
    prompt: ctx.session.engine.assemble({ rubric, answer: text }),
    answer: text,
    answerHash: sha256(text),
    answerId: String(answerId),
    schema: outputJsonSchema(cfg.mode, rubric),
    timeoutMs: cfg.params.timeout_ms,
  };
  return { customId, req };
}
