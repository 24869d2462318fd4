import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import type { LoadedJudge } from '../../judges/config.ts';
import { defaultTemplatePath } from '../../judges/engine.ts';

/**
 * The judges row of a judge config (by config hash): written by the first grade, enqueue or batch that
 * uses the config, with the prompt template's text beside the config so a stored grade says what the
 * judge was asked.
 */
export async function ensureJudgeRow(database: Database, judge: LoadedJudge): Promise<number> {
  const c = judge.config;
  let promptText: string | null = null;
  try {
    promptText = readFileSync(defaultTemplatePath(judge), 'utf8');
  } catch {
    promptText = null;
  }
  await database.db
    .insert(judges)
    .values({ slug: c.id, provider: c.provider, model: c.model, config: { ...c, promptText }, configHash: judge.configHash })
    .onConflictDoNothing();
  const id = await findJudgeRow(database, judge);
  return id!;
}

/** The judges row of a judge config, or null when it never graded (nothing is written). */
export async function findJudgeRow(database: Database, judge: LoadedJudge): Promise<number | null> {
  const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
  return row?.id ?? null;
}
