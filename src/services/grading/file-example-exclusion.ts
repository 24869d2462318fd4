import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LabelRow } from '../../domain/labels.ts';
import { JUDGES_DIR, loadJudge, resolveJudgeFile } from '../../judges/config.ts';

/**
 * `assay calibrate --labels FILE` and anchored judges (docs/judges.md "Excluded from calibration"): the
 * stored-label path leaves a judge's own example answers out of its figures (example-exclusion.ts); a
 * labels file names no run and no answer text, so only what it can match is left out: a judge rater of
 * the file whose judges/<rater>.yaml lists `examples:` from this same label set (`labels:` resolving to
 * FILE) has its rows of those answers dropped (the people's rows stay) and counted; its other examples (an
 * answer of a run, of the database, of another label set) are said in a note naming the --run path.
 * Reads judge files only, no database: the file path stays a computation over plain files.
 */

export interface FileExampleExclusion {
  rows: LabelRow[];
  /** Per anchored judge, the answers of the file left out of its figures (judges with none absent). */
  excludedExamples: Record<string, number>;
  notes: string[];
}

const JUDGE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));

export function excludeFileExamples(rows: readonly LabelRow[], labelsPath: string, dir = JUDGES_DIR): FileExampleExclusion {
  const target = real(labelsPath);
  const judges = [...new Set(rows.filter((r) => r.kind === 'judge').map((r) => r.rater))].sort();
  const excludedExamples: Record<string, number> = {};
  const notes: string[] = [];
  let kept = [...rows];
  for (const rater of judges) {
    if (!JUDGE_ID.test(rater) || !existsSync(join(dir, `${rater}.yaml`))) continue;
    // A judge file that does not load is not this report's to refuse: grading refuses it where it is used.
    let judge;
    try {
      judge = loadJudge(rater, dir);
    } catch {
      continue;
    }
    const refs = judge.config.examples ?? [];
    const shown = new Set<string>();
    let unmatched = 0;
    for (const ref of refs) {
      if (ref.labels === undefined || real(resolveJudgeFile(judge, ref.labels)) !== target) {
        unmatched++;
        continue;
      }
      // The examples of a label set are its answers people labelled item by item (judge-examples.ts fileAnswers).
      const named = ref.answers?.map(String) ?? rows.filter((r) => r.kind === 'human' && r.item !== undefined).map((r) => r.answer);
      for (const a of named) shown.add(a);
    }
    const mine = new Set(kept.filter((r) => r.rater === rater && shown.has(r.answer)).map((r) => r.answer));
    if (mine.size) {
      kept = kept.filter((r) => !(r.rater === rater && mine.has(r.answer)));
      excludedExamples[rater] = mine.size;
      notes.push(`judge '${rater}': ${mine.size} answer(s) of this label set are its examples (judges/${rater}.yaml) and are left out of its figures`);
    }
    if (unmatched) {
      notes.push(
        `judge '${rater}': ${unmatched} of its examples name answers of a run, of the database or of another label set, which this labels file cannot match (it names no run and no text): calibrate with --run R --judge ${rater} to leave those out`,
      );
    }
  }
  return { rows: kept, excludedExamples, notes };
}
