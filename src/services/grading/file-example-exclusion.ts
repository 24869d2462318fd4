import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isItemKey } from '../../domain/campaigns.ts';
import { parseLabels, type LabelRow } from '../../domain/labels.ts';
import { readInputText } from '../../input/text-file.ts';
import { JUDGES_DIR, type LoadedJudge, resolveJudgeFile } from '../../judges/config.ts';
import { isLoadedPanel, loadJudgeOrPanel, panelJudges } from '../../judges/panel-config.ts';

/**
 * `assay calibrate --labels FILE`, POST /api/calibrate (labels in the body) and anchored judges
 * (docs/judges.md "Excluded from calibration"): the stored-label path leaves a judge's own example answers
 * out of its figures (example-exclusion.ts); a label set names no run and no answer text, so only what it
 * can match is left out. A judge rater whose judges/<rater>.yaml lists `examples:` from a label set
 * (`labels:`) has its rows of those answers dropped (the people's rows stay) and counted: every named
 * answer when the set is FILE itself (`labels:` resolving to it); otherwise, and for a body, which has no
 * path, each answer whose people's item verdicts in that set, the ones the judge was shown, are all among
 * these rows' (the same rater, item and verdict): the same labelled answer, under whatever file name or in
 * a request. Its other examples (an answer of a run, of the database, of a label set whose verdicts of it
 * are not among these) are said in a note naming the --run path. Reads judge and label files only, no
 * database: the file path stays a computation over plain files.
 */

export interface FileExampleExclusion {
  rows: LabelRow[];
  /** Per anchored judge, the answers of the label set left out of its figures (judges with none absent). */
  excludedExamples: Record<string, number>;
  notes: string[];
}

const JUDGE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
const verdict = (label: unknown) => String(label).trim().toLowerCase();
const itemKey = (r: LabelRow) => `${r.rater}\u0000${r.item}\u0000${verdict(r.label)}`;

/**
 * Per answer, the people's item verdicts of a label set, as rater/item/verdict keys: what the judge was
 * shown (judge-examples.ts fileAnswers), so claim marks and whole-answer ratings beside them are not asked for.
 */
function humanItems(rows: readonly LabelRow[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.kind !== 'human' || r.item === undefined || !isItemKey(r.item)) continue;
    out.set(r.answer, (out.get(r.answer) ?? new Set()).add(itemKey(r)));
  }
  return out;
}

/** The label set an example names, by answer; null when it cannot be read (grading refuses it where it is used). */
function exampleSet(path: string): Map<string, Set<string>> | null {
  try {
    return humanItems(parseLabels(readInputText(path, { what: 'labels' }), `labels ${path}`));
  } catch {
    return null;
  }
}

/** `labelsPath`: the file the rows were read from; null for rows of a request body. */
export function excludeFileExamples(rows: readonly LabelRow[], labelsPath: string | null, dir = JUDGES_DIR): FileExampleExclusion {
  const target = labelsPath === null ? null : real(labelsPath);
  const judges = [...new Set(rows.filter((r) => r.kind === 'judge').map((r) => r.rater))].sort();
  const ours = humanItems(rows);
  const excludedExamples: Record<string, number> = {};
  const notes: string[] = [];
  let kept = [...rows];
  for (const rater of judges) {
    if (!JUDGE_ID.test(rater) || !existsSync(join(dir, `${rater}.yaml`))) continue;
    // A judge file that does not load is not this report's to refuse: grading refuses it where it is used.
    // A panel was shown what its members were (example-exclusion.ts): their examples are its own.
    let judges: LoadedJudge[];
    let panel = false;
    try {
      const loaded = loadJudgeOrPanel(rater, { dir });
      panel = isLoadedPanel(loaded);
      judges = isLoadedPanel(loaded) ? panelJudges(loaded) : [loaded];
    } catch {
      continue;
    }
    const refs = judges.flatMap((judge) => (judge.config.examples ?? []).map((ref) => ({ judge, ref })));
    const shown = new Set<string>();
    let unmatched = 0;
    for (const { judge, ref } of refs) {
      if (ref.labels === undefined) {
        unmatched++;
        continue;
      }
      const path = real(resolveJudgeFile(judge, ref.labels));
      // The examples of a label set are its answers people labelled item by item (judge-examples.ts fileAnswers).
      if (path === target) {
        for (const a of ref.answers?.map(String) ?? [...ours.keys()]) shown.add(a);
        continue;
      }
      const set = exampleSet(path);
      const named = ref.answers?.map(String) ?? [...(set?.keys() ?? [])];
      const same = named.filter((a) => {
        const theirs = set?.get(a);
        const mine = ours.get(a);
        return theirs !== undefined && theirs.size > 0 && mine !== undefined && [...theirs].every((k) => mine.has(k));
      });
      for (const a of same) shown.add(a);
      if (same.length < named.length || named.length === 0) unmatched++;
    }
    const mine = new Set(kept.filter((r) => r.rater === rater && shown.has(r.answer)).map((r) => r.answer));
    if (mine.size) {
      kept = kept.filter((r) => !(r.rater === rater && mine.has(r.answer)));
      excludedExamples[rater] = mine.size;
      notes.push(`judge '${rater}': ${mine.size} answer(s) of this label set are its examples (judges/${rater}.yaml${panel ? ', its members' : ''}) and are left out of its figures`);
    }
    if (unmatched) {
      notes.push(
        `judge '${rater}': ${unmatched} of its examples name answers of a run, of the database or of a label set whose people's verdicts of them are not among these labels, which this label set cannot match (it names no run and no text): calibrate with --run R --judge ${rater} to leave those out`,
      );
    }
  }
  return { rows: kept, excludedExamples, notes };
}
