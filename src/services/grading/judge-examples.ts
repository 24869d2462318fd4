import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { and, asc, eq, inArray, ne, notInArray, notLike } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, labels, rubrics, runs } from '../../db/schema.ts';
import { isItemKey, WHOLE_ANSWER_KEYS } from '../../domain/campaigns.ts';
import { badInput, isAssayError } from '../../domain/errors.ts';
import type { LabelRow } from '../../domain/labels.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { ITEM_VERDICTS, type ItemVerdict } from '../../domain/verdicts.ts';
import { readInputText } from '../../input/text-file.ts';
import { type LoadedJudge, resolveJudgeFile } from '../../judges/config.ts';
import { attachExamples, type JudgeExample } from '../../judges/example-prompt.ts';
import type { JudgeExampleRef } from '../../judges/example-refs.ts';
import { type AnyLoadedJudge, isLoadedPanel, type LoadedPanel, panelConfigHash, type PanelMember } from '../../judges/panel-config.ts';
import { majorityVerdict, type VoteCounts } from '../../scoring/panel/index.ts';
import { getRubric, type RubricVersionView, toRubric } from '../rubrics.ts';
import { settleVersions, versionNotes, versionTexts, type VersionedRow } from './label-versions.ts';

/**
 * Anchored judges (docs/judges.md): a judge file's `examples:` resolved against the database — each
 * named answer's text, its rubric, and the people's verdicts (stored human labels, or the human rows of
 * a labels file), the majority per item with ties broken as in a panel vote. Read only: a refusal
 * (exit 2) leaves nothing written. Grading calls this where it opens a judge (session.ts,
 * panel-session.ts, run-queue.ts, worker.ts, batch.ts), so the examples are in the prompt and the
 * config hash wherever the judge grades.
 */

/** A named answer before its labels are known: where it was listed, for messages. */
interface Named {
  at: string;
  answerId: number;
  run: string;
  externalId: string;
  text: string | null;
  rubric: string | null;
  /** From a labels file: the people's labels there (else the stored human labels are read). */
  fileLabels?: Array<{ item: string; label: string; rater: string; line: number }>;
}

const answerColumns = { id: answers.id, run: runs.name, externalId: answers.externalId, text: answers.text, rubric: rubrics.slug };

async function answersWhere(database: Database, where: ReturnType<typeof eq>) {
  return database.db.select(answerColumns).from(answers).innerJoin(runs, eq(runs.id, answers.runId)).leftJoin(rubrics, eq(rubrics.id, answers.rubricId)).where(where);
}

async function runAnswer(database: Database, run: string, externalId: string, at: string): Promise<Named> {
  const [a] = await answersWhere(database, and(eq(runs.name, run), eq(answers.externalId, externalId))!);
  if (!a) {
    const [r] = await database.db.select({ id: runs.id }).from(runs).where(eq(runs.name, run));
    throw badInput(r ? `${at}: run '${run}' has no answer '${externalId}'` : `${at}: unknown answer: no run '${run}'`);
  }
  return { at, answerId: a.id, run: a.run, externalId: a.externalId, text: a.text, rubric: a.rubric };
}

/** The answers of a labels file that people labelled item by item, in the order the file first names them. */
async function fileAnswers(database: Database, judge: LoadedJudge, ref: JudgeExampleRef & { labels: string; run: string }, at: string): Promise<Named[]> {
  // Next to the judge file, then in judges/; a file in neither is named where the judge file would have it.
  const found = resolveJudgeFile(judge, ref.labels);
  const path = existsSync(found) ? found : resolve(judge.baseDir, ref.labels);
  // Unreadable, malformed or an invalid row: the label set's own one-line refusal (naming file and line),
  // said to be this example's.
  let rows: LabelRow[];
  // Imported here, not at the top: this module loads with the grading session, before the API routes, and
  // LabelRowSchema built before @hono/zod-openapi extends zod has no .openapi (src/api/routes/calibrate.ts).
  const { parseLabels } = await import('../../domain/labels.ts');
  try {
    rows = parseLabels(readInputText(path, { what: 'labels' }), `labels ${path}`);
  } catch (e) {
    if (isAssayError(e) && e.code === 'bad_input') throw badInput(`${at}: ${e.message}`);
    throw e;
  }
  const byAnswer = new Map<string, NonNullable<Named['fileLabels']>>();
  for (const r of rows) {
    if (r.kind !== 'human' || r.item === undefined || !isItemKey(r.item)) continue;
    if (!(ITEM_VERDICTS as readonly string[]).includes(String(r.label).trim().toLowerCase())) {
      throw badInput(`${at}: labels ${path}: line ${r.line}: ${JSON.stringify(r.label)} is not a verdict (expected ${ITEM_VERDICTS.join('|')})`);
    }
    const list = byAnswer.get(r.answer) ?? [];
    const twice = list.find((l) => l.item === r.item && l.rater === r.rater);
    if (twice) throw badInput(`${at}: labels ${path}: line ${r.line}: ${r.rater} labels item ${r.item} of answer ${r.answer} again (first on line ${twice.line})`);
    list.push({ item: r.item, label: String(r.label).trim().toLowerCase(), rater: r.rater, line: r.line! });
    byAnswer.set(r.answer, list);
  }
  const wanted = ref.answers?.map(String) ?? [...byAnswer.keys()];
  if (wanted.length === 0) throw badInput(`${at}: labels ${path}: no human item labels (an example needs the people's verdicts of rubric items)`);
  const out: Named[] = [];
  for (const id of wanted) {
    const list = byAnswer.get(id);
    if (!list) throw badInput(`${at}: labels ${path}: answer '${id}' has no human item labels in the file`);
    const named = await runAnswer(database, ref.run, id, `${at}: labels ${path}: line ${list[0]!.line}`);
    out.push({ ...named, fileLabels: list });
  }
  return out;
}

async function expand(database: Database, judge: LoadedJudge, ref: JudgeExampleRef, at: string): Promise<Named[]> {
  if (ref.labels !== undefined) return fileAnswers(database, judge, ref as JudgeExampleRef & { labels: string; run: string }, at);
  if (ref.run !== undefined) return [await runAnswer(database, ref.run, String(ref.answer), at)];
  const [a] = await answersWhere(database, eq(answers.id, Number(ref.answer)));
  if (!a) throw badInput(`${at}: unknown answer: no answer with database id ${ref.answer}`);
  return [{ at, answerId: a.id, run: a.run, externalId: a.externalId, text: a.text, rubric: a.rubric }];
}

type StoredLabel = { item: string; label: string; rater: string; versionId: number | null };

/** Stored human item labels of the answers, by answer id (claim marks and answer-level labels are not verdicts). */
async function storedLabels(database: Database, ids: number[]): Promise<Map<number, StoredLabel[]>> {
  const out = new Map<number, StoredLabel[]>();
  if (ids.length === 0) return out;
  const rows = await database.db
    .select({ answerId: labels.answerId, item: labels.itemKey, label: labels.label, rater: labels.annotator, versionId: labels.rubricVersionId })
    .from(labels)
    .where(and(inArray(labels.answerId, ids), eq(labels.kind, 'human'), ne(labels.itemKey, ''), notLike(labels.itemKey, 'claim:%'), notInArray(labels.itemKey, WHOLE_ANSWER_KEYS)))
    .orderBy(asc(labels.createdAt), asc(labels.id));
  // One vote per person and item: someone who labelled it in two campaigns (labels.ts) has their newest label counted.
  const newest = new Map<string, (typeof rows)[number]>();
  for (const r of rows) newest.set(`${r.answerId}\u0000${r.item}\u0000${r.rater}`, r);
  for (const r of newest.values()) {
    const list = out.get(r.answerId) ?? [];
    list.push({ item: r.item, label: r.label.trim().toLowerCase(), rater: r.rater, versionId: r.versionId });
    out.set(r.answerId, list);
  }
  return out;
}

/**
 * The stored labels given against the wording of their items the example shows: the rubric's latest
 * version, what the judge grades against. The calibration's rule (label-versions.ts) with that version
 * as every item's reference: a label whose version words the item otherwise is left out and counted; one
 * of unknown version is kept and counted.
 */
async function currentWording(database: Database, answerId: number, list: readonly StoredLabel[], view: RubricVersionView): Promise<{ list: StoredLabel[]; textChanged: number; notes: string[] }> {
  const shown: VersionedRow[] = view.items.map((it) => ({ row: { answer: '', item: it.id, rater: '', kind: 'judge', label: '' }, answerId, versionId: view.rubricVersionId }));
  const of = new Map<LabelRow, StoredLabel>();
  const given: VersionedRow[] = list.map((l) => {
    const row: LabelRow = { answer: '', item: l.item, rater: l.rater, kind: 'human', label: l.label };
    of.set(row, l);
    return { row, answerId, versionId: l.versionId };
  });
  const rows = [...shown, ...given];
  const ids = rows.flatMap((r) => (r.versionId === null ? [] : [r.versionId]));
  const { kept, textChanged, unknown } = settleVersions(rows, await versionTexts(database, ids));
  return { list: kept.flatMap((r) => (of.has(r) ? [of.get(r)!] : [])), textChanged, notes: versionNotes({ textChanged, unknown, superseded: 0 }) };
}

/** The people's verdict per item: the majority, a tie to the verdict worth fewer points (TIE_PREFERENCE). */
function humanVerdicts(named: Named, list: ReadonlyArray<{ item: string; label: string; rater: string; line?: number }>, rubric: Rubric): JudgeExample['verdicts'] {
  const votes = new Map<string, VoteCounts>();
  for (const l of list) {
    const line = l.line !== undefined ? ` (line ${l.line})` : '';
    if (!(ITEM_VERDICTS as readonly string[]).includes(l.label)) {
      throw badInput(`${named.at}: answer ${named.externalId} of run ${named.run}: ${l.rater}'s label of item ${l.item} is ${JSON.stringify(l.label)}, not a verdict (expected ${ITEM_VERDICTS.join('|')})`);
    }
    if (!rubric.items.some((it) => it.id === l.item)) {
      throw badInput(`${named.at}: answer ${named.externalId} of run ${named.run}: item '${l.item}'${line} is not an item of rubric ${rubric.id}`);
    }
    const v = votes.get(l.item) ?? (Object.fromEntries(ITEM_VERDICTS.map((x) => [x, 0])) as VoteCounts);
    v[l.label as ItemVerdict]++;
    votes.set(l.item, v);
  }
  return rubric.items.flatMap((it) => (votes.has(it.id) ? [{ item: it.id, verdict: majorityVerdict(votes.get(it.id)!)! }] : []));
}

async function resolveJudge(database: Database, judge: LoadedJudge): Promise<LoadedJudge> {
  const refs = judge.config.examples;
  if (!refs?.length || judge.examplesText !== undefined) return judge;
  const named: Named[] = [];
  for (const [i, ref] of refs.entries()) named.push(...(await expand(database, judge, ref, `judge ${judge.config.id}: examples[${i}]`)));
  const seen = new Map<number, string>();
  for (const n of named) {
    const first = seen.get(n.answerId);
    if (first !== undefined) throw badInput(`${n.at}: answer ${n.externalId} of run ${n.run} is already an example (${first})`);
    seen.set(n.answerId, n.at);
  }
  const stored = await storedLabels(database, named.filter((n) => !n.fileLabels).map((n) => n.answerId));
  const rubricOf = new Map<string, Promise<RubricVersionView>>();
  const examples: JudgeExample[] = [];
  for (const n of named) {
    const what = `${n.at}: answer ${n.externalId} of run ${n.run}`;
    if (n.text === null || n.text.trim() === '') throw badInput(`${what}: has no text to show`);
    if (n.rubric === null) throw badInput(`${what}: names no rubric (an example shows the rubric items its verdicts are for)`);
    const found = n.fileLabels ?? stored.get(n.answerId) ?? [];
    if (found.length === 0) throw badInput(`${what}: has no human item labels (label it first, e.g. on its annotation page, or give a labels file)`);
    if (!rubricOf.has(n.rubric)) rubricOf.set(n.rubric, getRubric(database, n.rubric));
    const view = await rubricOf.get(n.rubric)!;
    const rubric = toRubric(view);
    // A labels file says nothing of versions; stored labels do, and one of another wording is left out.
    const settled = n.fileLabels ? { list: n.fileLabels, textChanged: 0, notes: [] } : await currentWording(database, n.answerId, stored.get(n.answerId)!, view);
    const list = settled.list;
    if (list.length === 0) {
      throw badInput(
        `${what}: its ${settled.textChanged} human item label(s) were all given against a rubric version whose text of the item differs from version ${view.version} of rubric ${view.id}, which the example shows; label it again against version ${view.version}`,
      );
    }
    examples.push({
      answerId: n.answerId,
      run: n.run,
      externalId: n.externalId,
      rubric: { id: rubric.id, title: rubric.title, items: rubric.items.map((it) => ({ id: it.id, weight: it.weight, text: it.text })) },
      text: n.text,
      verdicts: humanVerdicts(n, list, rubric),
      ...(settled.notes.length ? { notes: settled.notes } : {}),
    });
  }
  return attachExamples(judge, examples);
}

async function resolvePanel(database: Database, panel: LoadedPanel): Promise<LoadedPanel> {
  const members: PanelMember[] = [];
  for (const m of panel.members) {
    members.push(m.kind === 'judge' ? { ...m, judge: await resolveJudge(database, m.judge) } : { ...m, panel: await resolvePanel(database, m.panel) });
  }
  const configHash = panelConfigHash(panel.config, panel.quorum, members);
  return configHash === panel.configHash ? panel : { ...panel, members, configHash };
}

/**
 * The judge (or panel, its members') with `examples:` resolved: texts and verdicts in its prompt and its
 * config hash. A judge without examples, or already resolved, comes back unchanged, without a query.
 */
export async function resolveJudgeExamples<T extends AnyLoadedJudge>(database: Database, judge: T): Promise<T> {
  try {
    return (isLoadedPanel(judge) ? await resolvePanel(database, judge) : await resolveJudge(database, judge as LoadedJudge)) as T;
  } catch (e) {
    // A rubric that vanished between the answer read and its lookup is still the file's bad reference.
    if (isAssayError(e) && e.code === 'not_found') throw badInput(`judge ${judge.config.id}: examples: ${e.message}`);
    throw e;
  }
}
