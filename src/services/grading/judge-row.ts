import { readFileSync } from 'node:fs';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { AssayError } from '../../domain/errors.ts';
import type { LoadedJudge } from '../../judges/config.ts';
import { defaultTemplatePath } from '../../judges/engine.ts';
import { type AnyLoadedJudge, isLoadedPanel } from '../../judges/panel-config.ts';

/**
 * The judges row of a judge config (by config hash): written by the first grade, enqueue or batch that
 * uses the config, with the prompt template's text beside the config so a stored grade says what the
 * judge was asked.
 */
export async function ensureJudgeRow(database: Database, judge: AnyLoadedJudge): Promise<number> {
  await refuseChangedTemplates(database, judge);
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
  const promptText = templateText(judge);
  // An anchored judge's examples as resolved (answer ids and the people's verdicts; the texts are the
  // answers'): what calibration leaves out of this judge's figures (example-exclusion.ts).
  const resolvedExamples = judge.examples?.map((e) => ({ answerId: e.answerId, run: e.run, answer: e.externalId, rubric: e.rubric.id, verdicts: e.verdicts, ...(e.notes?.length ? { notes: e.notes } : {}) }));
  return { slug: c.id, provider: c.provider, model: c.model, config: { ...c, promptText, ...(resolvedExamples ? { resolvedExamples } : {}) }, configHash: judge.configHash };
}

/** The prompt template's text as read now (null when it cannot be read: the engine reports that itself). */
function templateText(judge: LoadedJudge): string | null {
  try {
    return readFileSync(defaultTemplatePath(judge), 'utf8');
  } catch {
    return null;
  }
}

/** Providers that send the template: a lexical or replay judge's grades do not depend on its text. */
const PROMPTED = new Set(['anthropic', 'openai', 'openai-compatible']);

/** A judge and, for a panel, every member judge (each grades under its own row), with who it is for the message. */
function judgesOf(judge: AnyLoadedJudge, via = ''): Array<{ judge: LoadedJudge; who: string }> {
  if (!isLoadedPanel(judge)) return [{ judge, who: `${via}judge ${judge.config.id}` }];
  return judge.members.flatMap((m) => (m.kind === 'judge' ? judgesOf(m.judge, `${via}panel ${judge.config.id}: member `) : judgesOf(m.panel, `${via}panel ${judge.config.id}: member `)));
}

/**
 * The config hash covers the judge file, which names its template by path: a template edited in place
 * keeps the hash, and so the judges row, whose earlier grades needs-grading counts as done. Grading on
 * would store grades of two prompts under one judge configuration, so it is refused before anything is
 * written or sent. A row without the text (older rows, a template unreadable then) is not refused.
 */
export async function refuseChangedTemplates(database: Database, judge: AnyLoadedJudge): Promise<void> {
  const prompted = judgesOf(judge).filter((j) => PROMPTED.has(j.judge.config.provider));
  if (prompted.length === 0) return;
  const rows = await database.db
    .select({ configHash: judges.configHash, promptText: sql<string | null>`${judges.config}->>'promptText'` })
    .from(judges)
    .where(inArray(judges.configHash, prompted.map((j) => j.judge.configHash)));
  const stored = new Map(rows.map((r) => [r.configHash, r.promptText]));
  for (const { judge: j, who } of prompted) {
    const then = stored.get(j.configHash);
    if (then == null) continue;
    const now = templateText(j);
    if (now === null || now === then) continue;
    const path = defaultTemplatePath(j);
    throw new AssayError(
      'conflict',
      `${who}: its prompt template ${path} changed since this configuration first graded (config ${j.configHash.slice(0, 12)}); grading now would mix grades of the two templates under one judge. Give the judge a new id in its file to grade with the new template as a new judge, or restore the template to grade on with the old one`,
    );
  }
}

/** The judges row of a judge config, or null when it never graded (nothing is written). */
export async function findJudgeRow(database: Database, judge: AnyLoadedJudge): Promise<number | null> {
  const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
  return row?.id ?? null;
}
