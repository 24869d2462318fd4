import { and, asc, eq, ne } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges, providerBatches } from '../../db/schema.ts';
import { AssayError } from '../../domain/errors.ts';
import type { LoadedJudge } from '../../judges/config.ts';

/**
 * `assay run --batch` with a judge file edited while a batch of it was at the provider. The edited file
 * is another configuration (another config hash, another judges row), and batches are kept per run ×
 * judges row: the edited judge would not see the batch, buy every answer again, and leave the paid
 * results of the batch uncollected with nothing said. So it is refused, naming the batches, before
 * anything is written or sent; the judge file as it was collects them (it finds its own row again).
 */
export async function refuseBatchesOfEarlierConfig(database: Database, runId: number, runName: string, judge: LoadedJudge): Promise<void> {
  const rows = await database.db
    .select({ id: providerBatches.id, batchId: providerBatches.providerBatchId, state: providerBatches.state, configHash: judges.configHash })
    .from(providerBatches)
    .innerJoin(judges, eq(judges.id, providerBatches.judgeId))
    .where(and(eq(providerBatches.runId, runId), eq(judges.slug, judge.config.id), ne(judges.configHash, judge.configHash), ne(providerBatches.state, 'reconciled')))
    .orderBy(asc(providerBatches.id));
  if (rows.length === 0) return;
  const configs = [...new Set(rows.map((r) => r.configHash.slice(0, 12)))];
  // An intent row may have reached the provider before a crash (it is looked up there by its row id).
  const named = rows.map((r) => (r.batchId ? `${r.batchId} (${r.state})` : `intent ${r.id} (created at the provider or not: looked up there on collect)`));
  throw new AssayError(
    'conflict',
    `run '${runName}' has ${rows.length} unfinished provider batch${rows.length === 1 ? '' : 'es'} of judge ${judge.config.id} as it was configured when ${rows.length === 1 ? 'it was' : 'they were'} submitted (config ${configs.join(', ')}): ${named.join(', ')}; ` +
      `the judge file has changed since (config ${judge.configHash.slice(0, 12)} now), and grading with it would buy those answers again and leave the paid results uncollected. ` +
      `Run the same command with the judge file as it was to collect them first, or give the changed judge a new id in its file to grade as a new judge and leave them`,
  );
}
