import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLabels } from '../../src/domain/labels.ts';
import { calibrateLabelSet } from '../../src/services/calibrate-labels.ts';
import { excludeFileExamples } from '../../src/services/grading/file-example-exclusion.ts';

/**
 * POST /api/calibrate (labels in the body) and `assay calibrate --labels FILE` leave an anchored judge's
 * own examples out alike (docs/judges.md "Excluded from calibration"). Judge 'anch' was shown a1 and a2
 * of set.jsonl with the people's verdicts and copies them; on a3 it disagrees with h1. Before, the body
 * kept a1 and a2: 'anch' agreed on 3 of 5 items (0.6), against 0 of 2 on the answers it was not shown;
 * and a copy of set.jsonl under another name was not recognised by the file path either.
 */
const dir = mkdtempSync(join(tmpdir(), 'assay-body-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rows = [
  ['a1', 'i1', 'correct', 'correct'],
  ['a1', 'i2', 'missing', 'missing'],
  ['a2', 'i1', 'partial', 'partial'],
  ['a3', 'i1', 'correct', 'incorrect'],
  ['a3', 'i2', 'partial', 'correct'],
].flatMap(([answer, item, h, j]) => [
  { answer: answer!, item: item!, rater: 'h1', kind: 'human' as const, label: h! },
  { answer: answer!, item: item!, rater: 'anch', kind: 'judge' as const, label: j! },
]);
const jsonl = rows.map((r) => JSON.stringify(r)).join('\n');
writeFileSync(join(dir, 'set.jsonl'), jsonl);
writeFileSync(join(dir, 'anch.yaml'), 'id: anch\nprovider: anthropic\nmodel: m\nprompt: p.md\nexamples:\n  - { labels: set.jsonl, run: pilot, answers: [a1, a2] }\n');

describe('labels in a request body: an anchored judge’s own examples are left out, as from the file', () => {
  it('the body of set.jsonl: a1 and a2 left out of anch’s figures, counted, and said', () => {
    const r = calibrateLabelSet({ scale: 'verdict', labels: rows }, dir);
    expect(r.excludedExamples).toEqual({ anch: 2 });
    const anch = r.judgeReports.find((j) => j.rater === 'anch')!;
    expect(anch.units).toBe(2);
    expect(anch.vsMajority.agreement).toBe(0);
    // The people's labels stay: the human side is all five units.
    expect(r.units).toBe(5);
    expect(r.notes).toContain("judge 'anch': 2 answer(s) of this label set are its examples (judges/anch.yaml) and are left out of its figures");
  });

  it('the same answer of the body comes out of the file and of a copy of it alike', () => {
    const parsed = parseLabels(jsonl, 'x.jsonl', 'verdict');
    const body = excludeFileExamples(rows.map((r) => ({ ...r })), null, dir);
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, jsonl);
    for (const r of [excludeFileExamples(parsed, join(dir, 'set.jsonl'), dir), excludeFileExamples(parsed, copy, dir)]) {
      expect(r.excludedExamples).toEqual(body.excludedExamples);
      expect(r.rows.map(({ line: _, ...x }) => x)).toEqual(body.rows);
    }
    expect(body.rows.filter((x) => x.rater === 'anch').map((x) => x.answer)).toEqual(['a3', 'a3']);
  });

  it('an answer of the same id whose people said otherwise is not the example: kept', () => {
    const other = rows.map((r) => (r.answer === 'a1' && r.kind === 'human' && r.item === 'i1' ? { ...r, label: 'incorrect' } : r));
    const r = calibrateLabelSet({ scale: 'verdict', labels: other }, dir);
    expect(r.excludedExamples).toEqual({ anch: 1 });
    expect(r.judgeReports.find((j) => j.rater === 'anch')!.units).toBe(4);
  });

  it('a judge without examples, or no judge file: nothing left out, an empty count', () => {
    const plain = rows.map((r) => (r.kind === 'judge' ? { ...r, rater: 'plain' } : r));
    const r = calibrateLabelSet({ scale: 'verdict', labels: plain }, dir);
    expect(r.excludedExamples).toEqual({});
    expect(r.judgeReports.find((j) => j.rater === 'plain')!.units).toBe(5);
  });
});

describe('an example set that also holds whole-answer ratings and claim marks', () => {
  // The judge is shown a1's item verdicts only (judge-examples.ts fileAnswers: a whole-answer rating and a
  // claim mark are no item verdicts); the set also holds h1's pass/fail and a claim mark of a1. Before, the
  // match asked for those too among the calibrated rows, which a verdict-scale set cannot hold (a 'pass' is
  // no verdict), so the copy of a1 was not recognised and 'anchm' kept its copied verdicts: agreement 1.
  const mixed = [
    { answer: 'a1', item: 'i1', rater: 'h1', kind: 'human', label: 'correct' },
    { answer: 'a1', item: 'i2', rater: 'h1', kind: 'human', label: 'missing' },
    { answer: 'a1', item: 'answer:binary', rater: 'h1', kind: 'human', label: 'pass' },
    { answer: 'a1', item: 'claim:1', rater: 'h1', kind: 'human', label: 'true' },
  ];
  writeFileSync(join(dir, 'mixed.jsonl'), mixed.map((r) => JSON.stringify(r)).join('\n'));
  writeFileSync(join(dir, 'anchm.yaml'), 'id: anchm\nprovider: anthropic\nmodel: m\nprompt: p.md\nexamples:\n  - { labels: mixed.jsonl, run: pilot }\n');
  const body = [
    ...mixed.slice(0, 2),
    { answer: 'a1', item: 'i1', rater: 'anchm', kind: 'judge', label: 'correct' },
    { answer: 'a1', item: 'i2', rater: 'anchm', kind: 'judge', label: 'missing' },
    { answer: 'a3', item: 'i1', rater: 'h1', kind: 'human', label: 'correct' },
    { answer: 'a3', item: 'i1', rater: 'anchm', kind: 'judge', label: 'incorrect' },
  ] as Array<{ answer: string; item: string; rater: string; kind: 'human' | 'judge'; label: string }>;

  it('recognises the example by the item verdicts it was shown', () => {
    const r = calibrateLabelSet({ scale: 'verdict', labels: body }, dir);
    expect(r.excludedExamples).toEqual({ anchm: 1 });
    const anchm = r.judgeReports.find((j) => j.rater === 'anchm')!;
    expect(anchm.units).toBe(1);
    expect(anchm.vsMajority.agreement).toBe(0);
  });

  it('from a file too: only the answers the set gives item verdicts of are its examples', () => {
    const file = join(dir, 'body.jsonl');
    writeFileSync(file, body.map((r) => JSON.stringify(r)).join('\n'));
    expect(excludeFileExamples(parseLabels(readFileSync(file, 'utf8'), file, 'verdict'), file, dir).excludedExamples).toEqual({ anchm: 1 });
    // The set itself, calibrated on no scale: a1 is the example; a2, rated pass/fail only, is none.
    const own = [...mixed, { answer: 'a2', item: 'answer:binary', rater: 'h1', kind: 'human', label: 'fail' }, { answer: 'a2', item: 'i1', rater: 'anchm', kind: 'judge', label: 'correct' }];
    const ownFile = join(dir, 'mixed.jsonl');
    writeFileSync(ownFile, own.map((r) => JSON.stringify(r)).join('\n'));
    const kept = excludeFileExamples(parseLabels(readFileSync(ownFile, 'utf8'), ownFile), ownFile, dir);
    expect(kept.rows.filter((x) => x.rater === 'anchm').map((x) => x.answer)).toEqual(['a2']);
    writeFileSync(ownFile, mixed.map((r) => JSON.stringify(r)).join('\n'));
  });
});

describe('a panel rater whose member is anchored on the label set', () => {
  // The panel's file lists no examples; its member 'anch' was shown a1 and a2 of set.jsonl. The stored
  // path leaves a member's examples out of the panel's figures (example-exclusion.ts); before, the file and
  // body paths read only a judge file's own examples, so the panel kept its copied votes unsaid.
  writeFileSync(join(dir, 'p-set.yaml'), 'id: p-set\nprovider: panel\nmembers: [anch]\n');
  const panelRows = rows.map((r) => (r.kind === 'judge' ? { ...r, rater: 'p-set' } : r));

  it('leaves the member’s examples out of the panel’s figures, counted and said', () => {
    const r = calibrateLabelSet({ scale: 'verdict', labels: panelRows }, dir);
    expect(r.excludedExamples).toEqual({ 'p-set': 2 });
    expect(r.judgeReports.find((j) => j.rater === 'p-set')!.units).toBe(2);
    expect(r.notes).toContain("judge 'p-set': 2 answer(s) of this label set are its examples (judges/p-set.yaml, its members) and are left out of its figures");
    const file = join(dir, 'set.jsonl');
    const fromFile = excludeFileExamples(parseLabels(panelRows.map((x) => JSON.stringify(x)).join('\n'), file, 'verdict'), file, dir);
    expect(fromFile.excludedExamples).toEqual({ 'p-set': 2 });
  });
});
