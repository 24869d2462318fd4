import { readFileSync } from 'node:fs';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { AssayError, badInput, isAssayError } from '../../domain/errors.ts';
import { type LoadedJudge, resolveJudgeFile, sha256 } from '../../judges/config.ts';
import { defaultTemplatePath } from '../../judges/engine.ts';
import { type AnyLoadedJudge, isLoadedPanel, type LoadedPanel } from '../../judges/panel-config.ts';

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
  // A replay judge's file as it graded (sha256 of its bytes): the file is named by path, like the template.
  const replay = replayHash(judge);
  return { slug: c.id, provider: c.provider, model: c.model, config: { ...c, promptText, ...(replay ? { replayHash: replay } : {}), ...(resolvedExamples ? { resolvedExamples } : {}) }, configHash: judge.configHash };
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

/** A replay judge's file, read now: its bytes are the judge's verdicts (null when unreadable: the adapter says so). */
function replayHash(judge: LoadedJudge): string | null {
  if (judge.config.provider !== 'replay' || !judge.config.replay) return null;
  try {
    return sha256(readFileSync(resolveJudgeFile(judge, judge.config.replay)));
  } catch {
    return null;
  }
}

/** The member judges of a panel (each grades under its own row), refusing a nested panel (one bad-input line). */
export function panelMemberJudges(panel: LoadedPanel): LoadedJudge[] {
  return panel.members.map((m, i) => {
    if (m.kind === 'panel') throw badInput(`panel ${panel.config.id}: members[${i}]: '${m.ref}' is a panel; grading with a panel of panels is not supported yet (list its members directly)`);
    return m.judge;
  });
}

/** A judge, or each member judge of a panel, with who it is in a message (`panel P: member judge J`). */
export function judgesOf(judge: AnyLoadedJudge): Array<{ judge: LoadedJudge; who: string }> {
  if (!isLoadedPanel(judge)) return [{ judge, who: `judge ${judge.config.id}` }];
  return panelMemberJudges(judge).map((j) => ({ judge: j, who: `panel ${judge.config.id}: member judge ${j.config.id}` }));
}

/**
 * Runs `f` for one of judgesOf's judges; its own bad-input line (`judge J: …`) is said under `who`, so a
 * panel member's missing key names the panel too.
 */
export function asJudge<T>(who: string, judge: LoadedJudge, f: () => T): T {
  const own = `judge ${judge.config.id}: `;
  const rename = (e: unknown): never => {
    if (isAssayError(e) && e.code === 'bad_input' && who !== `judge ${judge.config.id}` && e.message.startsWith(own)) throw badInput(`${who}: ${e.message.slice(own.length)}`);
    throw e;
  };
  try {
    const r = f();
    // An adapter is built asynchronously: its refusal is renamed the same way.
    return (r instanceof Promise ? r.catch(rename) : r) as T;
  } catch (e) {
    return rename(e);
  }
}

const conflict = (who: string, what: string, path: string, configHash: string, restore: string) =>
  new AssayError(
    'conflict',
    `${who}: its ${what} ${path} changed since this configuration first graded (config ${configHash.slice(0, 12)}); grading now would mix grades of the two ${what}s under one judge. Give the judge a new id in its file to grade with the new ${what} as a new judge, or restore the ${restore} to grade on with the old one`,
  );

/**
 * The config hash covers the judge file, which names its prompt template (and a replay judge its file of
 * verdicts) by path: a file edited in place keeps the hash, and so the judges row, whose earlier grades
 * needs-grading counts as done and whose cache entries answer again. Grading on would store grades of two
 * prompts (two sets of recorded verdicts) under one judge configuration, so it is refused before anything
 * is written or sent. A row without the text or hash (older rows, a file unreadable then) is not refused.
 */
export async function refuseChangedTemplates(database: Database, judge: AnyLoadedJudge): Promise<void> {
  const checked = judgesOf(judge).filter((j) => PROMPTED.has(j.judge.config.provider) || j.judge.config.provider === 'replay');
  if (checked.length === 0) return;
  const rows = await database.db
    .select({ configHash: judges.configHash, promptText: sql<string | null>`${judges.config}->>'promptText'`, replayHash: sql<string | null>`${judges.config}->>'replayHash'` })
    .from(judges)
    .where(inArray(judges.configHash, checked.map((j) => j.judge.configHash)));
  const stored = new Map(rows.map((r) => [r.configHash, r]));
  for (const { judge: j, who } of checked) {
    const then = stored.get(j.configHash);
    if (!then) continue;
    if (j.config.provider === 'replay') {
      const now = replayHash(j);
      if (then.replayHash != null && now !== null && now !== then.replayHash) throw conflict(who, 'replay file', resolveJudgeFile(j, j.config.replay!), j.configHash, 'file');
      continue;
    }
    if (then.promptText == null) continue;
    const now = templateText(j);
    if (now === null || now === then.promptText) continue;
    throw conflict(who, 'prompt template', defaultTemplatePath(j), j.configHash, 'template');
  }
}

/** The judges row of a judge config, or null when it never graded (nothing is written). */
export async function findJudgeRow(database: Database, judge: AnyLoadedJudge): Promise<number | null> {
  const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
  return row?.id ?? null;
}
