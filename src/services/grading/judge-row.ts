import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { defaultTemplatePath } from '../../judges/engine.ts';
import { type AnyLoadedJudge, isLoadedPanel } from '../../judges/panel-config.ts';

/**
 * The judges row of a judge config (by config hash): written by the first grade, enqueue or batch that
 * uses the config, with the prompt template's text beside the config so a stored grade says what the
 * judge was asked.
 */
export async function ensureJudgeRow(database: Database, judge: AnyLoadedJudge): Promise<number> {
  await database.db.insert(judges).values(judgeRowValues(judge)).onConflictDoNothing();
  const id = await findJudgeRow(database, judge);
  return id!;
}

/**
 * A panel's row: provider `panel`, model = its member ids joined by '+', config = the panel file with
 * the quorum in force and each member's config hash (a member's own row holds its full config).
 */
function judgeRowValues(judge: AnyLoadedJudge): typeof judges.$inferInsert {
  if (isLoadedPanel(judge)) {
    const memberIds = judge.members.map((m) => (m.kind === 'judge' ? m.judge.config.id : m.panel.config.id));
    const memberHashes = judge.members.map((m) => (m.kind === 'judge' ? m.judge.configHash : m.panel.configHash));
    return { slug: judge.config.id, provider: 'panel', model: memberIds.join('+'), config: { ...judge.config, quorum: judge.quorum, memberHashes }, configHash: judge.configHash };
  }
  const c = judge.config;
  let promptText: string | null = null;
  try {
    promptText = readFileSync(defaultTemplatePath(judge), 'utf8');
  } catch {
    promptText = null;
  }
  // An anchored judge's examples as resolved (answer ids and the people's verdicts; the texts are the
  // answers'): what calibration leaves out of this judge's figures (example-exclusion.ts).
  const resolvedExamples = judge.examples?.map((e) => ({ answerId: e.answerId, run: e.run, answer: e.externalId, rubric: e.rubric.id, verdicts: e.verdicts, ...(e.notes?.length ? { notes: e.notes } : {}) }));
  return { slug: c.id, provider: c.provider, model: c.model, config: { ...c, promptText, ...(resolvedExamples ? { resolvedExamples } : {}) }, configHash: judge.configHash };
}

/** The judges row of a judge config, or null when it never graded (nothing is written). */
export async function findJudgeRow(database: Database, judge: AnyLoadedJudge): Promise<number | null> {
  const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
  return row?.id ?? null;
}
