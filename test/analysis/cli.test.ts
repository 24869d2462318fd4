import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from '../helpers/cli.ts';

const LABELS = `${FIXTURES}calibration-small.jsonl`;
const RUBRIC = `${FIXTURES}calibration-small.rubric.yaml`;
const DTS = `${FIXTURES}describe-then-solve-209.jsonl`;
const tmp = mkdtempSync(join(tmpdir(), 'assay-analysis-cli-'));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

/** Exit 2, exactly one line on stderr, nothing on stdout. */
function expectBadInput(args: string[], message: RegExp | string): void {
  const r = runCli(args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  if (typeof message === 'string') expect(lines[0]).toBe(message);
  else expect(lines[0]).toMatch(message);
}

describe('assay calibrate', () => {
  it('--json: the report of the hand-computed fixture', () => {
    const r = runCli(['calibrate', '--labels', LABELS, '--scale', 'verdict', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(j.majority).toMatchObject({ units: 37, ties: 3 });
    expect(j.judgeReports[0].vsMajority.kappa.kappa).toBeCloseTo(591 / 850, 12);
    expect(j.judgeReports[0].vsMajority.weightedKappa.kappa).toBeCloseTo(1052 / 1237, 12);
    expect(j.humanCeiling.alpha.alpha).toBeCloseTo(12247 / 12800, 12);
    expect(j.judgeReports[0].byItem.map((i: { item: string }) => i.item)).toEqual(['i2', 'i3', 'i4', 'i5', 'i1']);
  });

  it('readable tables without --json', () => {
    const r = runCli(['calibrate', '--labels', LABELS, '--scale', 'verdict']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Calibration on the verdict scale: 40 units (8 answers, 5 items, models vlm-a, vlm-b)');
    expect(r.stdout).toMatch(/Krippendorff alpha \(ordinal\) among h1, h2: 0\.957 \[/);
    expect(r.stdout).toMatch(/majority\s+37\s+0\.811\s+0\.695/);
  });

  it('--rubric weights the answer roll-up; --seed fixes the bootstrap', () => {
    const a = runCli(['calibrate', '--labels', LABELS, '--scale', 'verdict', '--rubric', RUBRIC, '--seed', '3', '--json']).json();
    // i1 (weight 2) always agrees, so each answer's judge − human difference keeps its numerator and
    // gains 1 in the denominator: a2 0.5/5, a4–a7 0.5/6 each, others 0 → bias = (0.1 + 4·0.5/6)/8 = 13/240.
    expect(a.judgeReports[0].answers.weighted).toBe(true);
    expect(a.judgeReports[0].answers.bias).toBeCloseTo(13 / 240, 12);
    const b = runCli(['calibrate', '--labels', LABELS, '--scale', 'verdict', '--seed', '3', '--json']).json();
    expect(b.humanCeiling.alpha.ci).toEqual(a.humanCeiling.alpha.ci);
  });

  it('reads CSV label files', () => {
    const csv = file('l.csv', 'answer,item,rater,kind,label\na1,i1,h1,human,pass\na1,i1,h2,human,pass\na1,i1,j,judge,fail\na2,i1,h1,human,fail\na2,i1,h2,human,fail\na2,i1,j,judge,fail\n');
    const r = runCli(['calibrate', '--labels', csv, '--scale', 'binary', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().judgeReports[0].vsMajority).toMatchObject({ n: 2, agreement: 0.5 });
  });

  const judgesOnly = file('judges.jsonl', '{"answer":"a","rater":"j","kind":"judge","label":"correct"}\n');
  const empty = file('empty.jsonl', '\n\n');
  const broken = file('broken.jsonl', '{"answer":"a","rater":"h","kind":"human","label":"correct"}\n{"answer":\n');
  const twice = file('twice.jsonl', '{"answer":"a","rater":"h","kind":"human","label":"correct"}\n{"answer":"a","rater":"h","kind":"human","label":"partial"}\n');
  const cases: [string, string[], RegExp | string][] = [
    ['unknown scale', ['--labels', LABELS, '--scale', 'likert'], "assay calibrate: --scale must be one of verdict|binary|numeric, got 'likert'"],
    ['no scale', ['--labels', LABELS], 'assay calibrate: missing required option --scale'],
    ['no labels', ['--scale', 'verdict'], 'assay calibrate: missing required option --labels (or --run)'],
    ['--run without --judge', ['--run', 'r1', '--scale', 'verdict'], 'assay calibrate: --run needs --judge J (the judge whose stored grades are calibrated)'],
    ['unknown judge', ['--labels', LABELS, '--scale', 'verdict', '--judge', 'gpt'], `assay calibrate: ${LABELS}: no labels from judge 'gpt' (judges present: j1)`],
    ['label not on the scale', ['--labels', LABELS, '--scale', 'numeric'], /calibration-small\.jsonl: line 1: field 'label': "correct" is not valid on the numeric scale/],
    ['no human rater', ['--labels', judgesOnly, '--scale', 'verdict'], `assay calibrate: ${judgesOnly}: no human rater (every row has kind 'judge'); calibration needs human labels`],
    ['empty file', ['--labels', empty, '--scale', 'verdict'], `assay calibrate: labels ${empty}: empty file`],
    ['malformed line', ['--labels', broken, '--scale', 'verdict'], new RegExp(`${broken}: line 2: not valid JSON`)],
    ['a unit labelled twice', ['--labels', twice, '--scale', 'verdict'], `assay calibrate: ${twice}: line 2: rater 'h' labels answer 'a' twice (first at line 1)`],
    ['missing file', ['--labels', join(tmp, 'nope.jsonl'), '--scale', 'verdict'], /labels .*nope\.jsonl: no such file/],
  ];
  it.each(cases)('exit 2 with one line: %s', (_name, args, message) => expectBadInput(['calibrate', ...args], message));
});

describe('assay analyze describe-then-solve', () => {
  it('--json: 56/209 end to end', () => {
    const r = runCli(['analyze', 'describe-then-solve', '--input', DTS, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const a = r.json().overall.answer;
    expect(Math.round(a.estimate * 1000) / 10).toBe(26.8);
    expect(a.ci.map((x: number) => Math.round(x * 1000) / 10)).toEqual([21.2, 33.2]);
  });

  it('readable table', () => {
    const r = runCli(['analyze', 'describe-then-solve', '--input', DTS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/overall\s+209\s+43\.1% \[36\.5, 49\.8\]/);
  });

  it('numeric scores with --threshold', () => {
    const f = file('scores.jsonl', '{"model":"m","item":"1","perception":0.9,"answer":0.8}\n{"model":"m","item":"2","perception":0.2,"answer":0.6}\n');
    expectBadInput(['analyze', 'describe-then-solve', '--input', f], `assay analyze describe-then-solve: ${f}: line 1: field 'perception' is a number (0.9) but no threshold is set (use --threshold τ; a score ≥ τ counts as ok)`);
    const r = runCli(['analyze', 'describe-then-solve', '--input', f, '--threshold', '0.5', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().overall).toMatchObject({ n: 2, perception: { successes: 1 }, answer: { successes: 2 } });
  });

  const bad = file('bad.jsonl', '{"model":"m","item":"1","perception":true,"answer":true}\n{"model":"m","item":"2","perception":"yes","answer":true}\n');
  const empty = file('empty-dts.jsonl', '');
  const cases: [string, string[], RegExp | string][] = [
    ['no input', [], 'assay analyze describe-then-solve: missing required option --input'],
    ['threshold not a number', ['--input', DTS, '--threshold', 'high'], "assay analyze describe-then-solve: --threshold must be a number, got 'high'"],
    ['malformed row', ['--input', bad], new RegExp(`${bad}: line 2: field 'perception'`)],
    ['empty file', ['--input', empty], `assay analyze describe-then-solve: input ${empty}: empty file`],
  ];
  it.each(cases)('exit 2 with one line: %s', (_name, args, message) => expectBadInput(['analyze', 'describe-then-solve', ...args], message));
});
