import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

/**
 * `assay calibrate --rubric`: the answer roll-up weights each label by its own rubric's item, never by
 * another rubric's item of the same id. Two rubrics share the item ids `subject` and `sky`:
 *   rub-a: subject 3, sky 1        rub-b: subject 1, sky 3
 * Answers x1 (rub-a) and y1 (rub-b): both people say correct on both items; the judge says subject
 * incorrect (0), sky correct (1). By hand, Σ w·points / Σ w:
 *   x1 judge (3·0 + 1·1)/4 = 1/4, human 1;  y1 judge (1·0 + 3·1)/4 = 3/4, human 1
 *   bias = ((1/4 − 1) + (3/4 − 1))/2 = −1/2, MAE = 1/2.
 * Weighted by rub-a alone (the old behaviour of --rubric a.yaml) y1 would be 1/4 and bias −3/4; by the
 * last --rubric given (rub-b) x1 would be 3/4 and bias −1/4: both exit 0 before.
 */
const tmp = mkdtempSync(join(tmpdir(), 'assay-calib-weights-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const rubric = (id: string, subject: number, sky: number, extra = ''): string =>
  file(`${id}.yaml`, `id: ${id}\ntitle: ${id}\nreference: A red kite over a field.\nitems:\n  - { id: subject, weight: ${subject}, text: A kite. }\n  - { id: sky, weight: ${sky}, text: A sky. }\n${extra}`);
const rows = (answer: string, rubricId: string | null, model: string): string[] =>
  ['subject', 'sky'].flatMap((item) =>
    [['h1', 'human', 'correct'], ['h2', 'human', 'correct'], ['j', 'judge', item === 'subject' ? 'incorrect' : 'correct']].map(([rater, kind, label]) =>
      JSON.stringify({ answer, ...(rubricId ? { rubric: rubricId } : {}), item, model, rater, kind, label }),
    ),
  );
const A = rubric('rub-a', 3, 1);
const B = rubric('rub-b', 1, 3);
const twoRubrics = file('two.jsonl', [...rows('x1', 'rub-a', 'm'), ...rows('y1', 'rub-b', 'm')].join('\n') + '\n');
const unnamed = file('unnamed.jsonl', [...rows('x1', null, 'm'), ...rows('y1', null, 'm')].join('\n') + '\n');

function expectBadInput(args: string[], message: RegExp, scale = 'verdict'): void {
  const r = runCli(['calibrate', '--scale', scale, ...args]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr.trim()).toMatch(message);
}

describe('assay calibrate --rubric: each label weighted by its own rubric', () => {
  it('two rubrics sharing item ids: each answer by its own (--rubric given once per rubric)', () => {
    const r = runCli(['calibrate', '--labels', twoRubrics, '--scale', 'verdict', '--rubric', A, '--rubric', B, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rollup = r.json().judgeReports[0].answers;
    expect(rollup.weighted).toBe(true);
    const by = Object.fromEntries(rollup.answers.map((a: { answer: string; judge: number; human: number }) => [a.answer, [a.judge, a.human]]));
    expect(by).toEqual({ x1: [1 / 4, 1], y1: [3 / 4, 1] });
    expect(rollup.bias).toBeCloseTo(-1 / 2, 12);
    expect(rollup.mae).toBeCloseTo(1 / 2, 12);
    // The order of the files does not matter.
    const swapped = runCli(['calibrate', '--labels', twoRubrics, '--scale', 'verdict', '--rubric', B, '--rubric', A, '--json']).json();
    expect(swapped.judgeReports[0].answers.answers).toEqual(rollup.answers);
  });

  it('a label of a rubric not given is refused, never weighted by the given one', () => {
    expectBadInput(['--labels', twoRubrics, '--rubric', A], /answer 'y1' is of rubric 'rub-b'.*--rubric gives rub-a/);
    expectBadInput(['--labels', twoRubrics, '--rubric', B], /answer 'x1' is of rubric 'rub-a'.*--rubric gives rub-b/);
  });

  it('labels naming no rubric: the one --rubric given; with several, which is which is unknown: refused', () => {
    const r = runCli(['calibrate', '--labels', unnamed, '--scale', 'verdict', '--rubric', A, '--json']);
    expect(r.code, r.stderr).toBe(0);
    // Both answers read as rub-a: (3·0 + 1·1)/4 = 1/4 each, bias −3/4; the notes say the labels named no rubric.
    const j = r.json();
    expect(j.judgeReports[0].answers.answers.map((a: { judge: number }) => a.judge)).toEqual([1 / 4, 1 / 4]);
    expect(j.judgeReports[0].answers.bias).toBeCloseTo(-3 / 4, 12);
    expect(j.notes.join('\n')).toMatch(/2 answer\(s\) name no rubric.*rub-a/);
    expectBadInput(['--labels', unnamed, '--rubric', A, '--rubric', B], /answer 'x1' names no rubric.*2 rubrics are given \(rub-a, rub-b\)/);
  });

  it('an item the rubric does not have, a rubric given twice: refused', () => {
    const other = file('other.jsonl', rows('x1', 'rub-a', 'm').map((l) => l.replace('"sky"', '"ground"')).join('\n') + '\n');
    expectBadInput(['--labels', other, '--rubric', A], /no weight for item 'ground' of answer 'x1': it is not an item of rubric 'rub-a'/);
    const A2 = file('rub-a-copy.yaml', `id: rub-a\ntitle: t\nreference: r\nitems:\n  - { id: subject, weight: 1, text: A kite. }\n  - { id: sky, weight: 1, text: A sky. }\n`);
    expectBadInput(['--labels', twoRubrics, '--rubric', A, '--rubric', A2, '--rubric', B], /--rubric: .*rub-a-copy.yaml and .*rub-a.yaml are both rubric 'rub-a' \(give each rubric once\)/);
  });

  it('--rubric on a scale of whole answers: refused (no item to weigh)', () => {
    const binary = file('binary.jsonl', '{"answer":"x1","rubric":"rub-a","rater":"h1","kind":"human","label":"pass"}\n{"answer":"x1","rubric":"rub-a","rater":"j","kind":"judge","label":"fail"}\n');
    expectBadInput(['--labels', binary, '--rubric', A], /--rubric weighs rubric items, which only --scale verdict labels \(the binary scale labels whole answers\)/, 'binary');
  });

  it('a rubric given that no label is of: said in the notes', () => {
    const onlyA = file('only-a.jsonl', rows('x1', 'rub-a', 'm').join('\n') + '\n');
    const r = runCli(['calibrate', '--labels', onlyA, '--scale', 'verdict', '--rubric', A, '--rubric', B, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().judgeReports[0].answers.answers.map((a: { judge: number }) => a.judge)).toEqual([1 / 4]);
    expect(r.json().notes.join('\n')).toMatch(/rubric 'rub-b' \(--rubric\) is the rubric of no labelled answer/);
  });
});
