import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../../src/analysis/calibration/index.ts';
import { parseLabels } from '../../../src/domain/labels.ts';
import { excludeFileExamples } from '../../../src/services/grading/file-example-exclusion.ts';

/**
 * `assay calibrate --labels FILE`: an anchored judge (judges/<rater>.yaml lists `examples:`) whose examples
 * are this same label set's answers is not calibrated on them (docs/judges.md "Excluded from calibration"),
 * as the stored-label path leaves them out. Before, the file path kept them: the judge copied the people's
 * verdicts of a1, a2 and its agreement on them counted (kappa 1 on copies). Examples the file cannot match
 * (an answer of a run or of the database: a labels file names neither run nor text) are said in a note.
 */
describe('labels file: an anchored judge’s own examples are left out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-'));
  const rows = [
    ['a1', 'i1', 'correct', 'correct'],
    ['a1', 'i2', 'missing', 'missing'],
    ['a2', 'i1', 'partial', 'partial'],
    ['a3', 'i1', 'correct', 'incorrect'],
    ['a3', 'i2', 'partial', 'correct'],
  ].flatMap(([answer, item, h, j]) => [
    { answer, item, rater: 'h1', kind: 'human', label: h },
    { answer, item, rater: 'anch', kind: 'judge', label: j },
    { answer, item, rater: 'plain', kind: 'judge', label: j },
  ]);
  const labels = join(dir, 'set.jsonl');
  writeFileSync(labels, rows.map((r) => JSON.stringify(r)).join('\n'));
  const judge = (examples: string) => `id: anch\nprovider: anthropic\nmodel: m\nprompt: p.md\nexamples:\n${examples}`;
  writeFileSync(join(dir, 'anch.yaml'), judge(`  - { labels: set.jsonl, run: pilot, answers: [a1, a2] }\n  - { run: other, answer: x9 }\n`));
  writeFileSync(join(dir, 'plain.yaml'), 'id: plain\nprovider: lexical\nmodel: lexical\n');
  const parsed = parseLabels(rows.map((r) => JSON.stringify(r)).join('\n'), labels, 'verdict');

  it('drops the anchored judge’s rows of its example answers, counts them, and says what it cannot check', () => {
    const r = excludeFileExamples(parsed, labels, dir);
    expect(r.excludedExamples).toEqual({ anch: 2 });
    expect(r.rows.filter((x) => x.rater === 'anch').map((x) => x.answer)).toEqual(['a3', 'a3']);
    // The people's labels and the other judge's stay.
    expect(r.rows.filter((x) => x.rater !== 'anch')).toEqual(parsed.filter((x) => x.rater !== 'anch'));
    expect(r.notes).toEqual([
      "judge 'anch': 2 answer(s) of this label set are its examples (judges/anch.yaml) and are left out of its figures",
      "judge 'anch': 1 of its examples name answers of a run, of the database or of a label set whose people's verdicts of them are not among these labels, which this label set cannot match (it names no run and no text): calibrate with --run R --judge anch to leave those out",
    ]);
    const report = calibrate(r.rows, { scale: 'verdict', source: labels });
    const anch = report.judgeReports.find((j) => j.rater === 'anch')!;
    expect(anch.units).toBe(2);
    expect(anch.vsMajority.agreement).toBe(0);
  });

  it('a label set whose people said otherwise of the examples’ ids leaves every row, with the note', () => {
    // The same ids, other verdicts: not the answers the judge was shown (a copy of set.jsonl would be: calibration-body-examples.test.ts).
    const other = join(dir, 'other.jsonl');
    const relabelled = rows.map((r) => (r.kind === 'human' && r.item === 'i1' ? { ...r, label: 'incorrect' } : r));
    writeFileSync(other, relabelled.map((r) => JSON.stringify(r)).join('\n'));
    const theirs = parseLabels(relabelled.map((r) => JSON.stringify(r)).join('\n'), other, 'verdict');
    const r = excludeFileExamples(theirs, other, dir);
    expect(r.excludedExamples).toEqual({});
    expect(r.rows).toEqual(theirs);
    expect(r.notes).toEqual([
      "judge 'anch': 2 of its examples name answers of a run, of the database or of a label set whose people's verdicts of them are not among these labels, which this label set cannot match (it names no run and no text): calibrate with --run R --judge anch to leave those out",
    ]);
  });
});
