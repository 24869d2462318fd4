import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { expectBadInput, FIXTURES, runCli } from '../helpers/cli.ts';

// Each case spawns the real binary; a loaded machine needs more than the default timeout.
vi.setConfig({ testTimeout: 120_000 });

/** The batch forms of `assay score description` and `assay score grid`: JSON Lines in, one line out each. */

const F = (f: string) => join(FIXTURES, f);
const dir = mkdtempSync(join(tmpdir(), 'assay-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, lines: unknown[]) => {
  const p = join(dir, name);
  writeFileSync(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return p;
};
const jsonLines = (stdout: string) => stdout.trimEnd().split('\n').map((l) => JSON.parse(l));

const RUBRIC = F('farmyard.rubric.yaml');
const verdicts = JSON.parse(readFileSync(F('farmyard.verdicts.json'), 'utf8')) as { items: { id: string; verdict: string }[]; claims: unknown[] };
const answerText = readFileSync(F('farmyard.answer.txt'), 'utf8');
// A second set, worked by hand: barn (weight 2) correct of 21.5 possible points; one true, one false claim.
const small = { items: [{ id: 'barn', verdict: 'correct' }], claims: [{ verdict: 'true' }, { verdict: 'false' }] };

describe('assay score description --verdicts V.jsonl', () => {
  it('scores each line as the single-file form does, then the means and sums', () => {
    const single = runCli(['score', 'description', '--rubric', RUBRIC, '--verdicts', F('farmyard.verdicts.json'), '--answer', F('farmyard.answer.txt'), '--json']);
    expect(single.code, single.stderr).toBe(0);
    const batch = runCli(['score', 'description', '--rubric', RUBRIC, '--verdicts', file('v.jsonl', [{ id: 'farm', ...verdicts, answer: answerText }, '', { id: 7, ...small }])]);
    expect(batch.code, batch.stderr).toBe(0);
    const [first, second, last] = jsonLines(batch.stdout);
    expect(first).toEqual({ id: 'farm', ...single.json() });
    expect(second).toEqual({
      id: '7',
      completeness: 2 / 21.5,
      correctness: 0.5,
      f1: (2 * (2 / 21.5) * 0.5) / (2 / 21.5 + 0.5),
      points: { earned: 2, possible: 21.5 },
      claims: { true: 1, false: 1, unverifiable: 0, total: 2 },
    });
    const s = single.json();
    expect(last).toEqual({
      aggregate: {
        n: 2,
        completeness: (s.completeness + 2 / 21.5) / 2,
        correctness: (s.correctness + 0.5) / 2,
        f1: (s.f1 + second.f1) / 2,
        points: { earned: s.points.earned + 2, possible: 43 },
        claims: { true: s.claims.true + 1, false: s.claims.false + 1, unverifiable: s.claims.unverifiable, total: s.claims.total + 2 },
      },
    });
  });

  it('--unverifiable exclude reaches every line', () => {
    const one = runCli(['score', 'description', '--rubric', RUBRIC, '--verdicts', F('farmyard.verdicts.json'), '--unverifiable', 'exclude', '--json']).json();
    const r = runCli(['score', 'description', '--rubric', RUBRIC, '--verdicts', file('x.jsonl', [{ id: 'a', ...verdicts }]), '--unverifiable', 'exclude', '--json']);
    expect(jsonLines(r.stdout)[0]).toEqual({ id: 'a', ...one });
  });

  it('bad lines are named by line number (exit 2, nothing on stdout)', () => {
    const v = (name: string, lines: unknown[]) => ['score', 'description', '--rubric', RUBRIC, '--verdicts', file(name, lines)];
    expectBadInput(v('b1.jsonl', [{ id: 'a', ...small }, '', '{not json']), /^assay score description: verdicts \S+b1\.jsonl: line 3: not valid JSON/);
    expectBadInput(v('b2.jsonl', [{ ...small }]), /line 1: "id" must be a non-empty string or a number$/);
    expectBadInput(v('b3.jsonl', [{ id: 'a', ...small }, { id: 'b', items: [{ id: 'silo', verdict: 'correct' }] }]), /line 2: items\[0\]: unknown rubric item 'silo'/);
    expectBadInput(v('b4.jsonl', [{ id: 'a', ...small }, { id: 'a', ...small }]), /line 2: duplicate id 'a'$/);
    expectBadInput(v('b5.jsonl', [{ id: 'a', items: [{ id: 'barn', verdict: 'great' }] }]), /line 1: items\[0\]\.verdict: Invalid option/);
    expectBadInput([...v('b6.jsonl', [{ id: 'a', ...small }]), '--answer', F('farmyard.answer.txt')], /--answer goes with one verdicts file/);
  });
});

describe('assay score grid --answers A.jsonl', () => {
  const TRUTH = F('grid-truth-6x9.json');
  const shifted = readFileSync(F('grid-answer-shifted.txt'), 'utf8');
  const perfect = readFileSync(F('grid-answer-perfect.txt'), 'utf8');

  it('scores each line as the single-file form does; the aggregate averages where defined', () => {
    const one = (answer: string) => runCli(['score', 'grid', '--truth', TRUTH, '--answer', F(answer), '--json']).json();
    const [a, b] = [one('grid-answer-shifted.txt'), one('grid-answer-perfect.txt')];
    const r = runCli(['score', 'grid', '--truth', TRUTH, '--answers', file('g.jsonl', [{ id: 's', answer: shifted }, { id: 'p', answer: perfect }])]);
    expect(r.code, r.stderr).toBe(0);
    const [first, second, last] = jsonLines(r.stdout);
    expect(first).toEqual({ id: 's', ...a });
    expect(second).toEqual({ id: 'p', ...b });
    expect(b.direct).toBe(1);
    expect(last.aggregate.n).toBe(2);
    expect(last.aggregate.status).toEqual({ valid: 2, repaired: 0, invalid: 0 });
    expect(last.aggregate.direct).toBe((a.direct + 1) / 2);
    expect(last.aggregate.neighbour).toBe((a.neighbour + b.neighbour) / 2);
  });

  it('an inline JSON answer and per-line given ids score as the files do', () => {
    const T4 = F('grid-truth-4x4.json');
    const given = join(dir, 'given.json');
    writeFileSync(given, JSON.stringify(['11', '0']));
    const single = runCli(['score', 'grid', '--truth', T4, '--answer', F('grid-answer-4x4-mapping.json'), '--given', given, '--json']).json();
    const mapping = JSON.parse(readFileSync(F('grid-answer-4x4-mapping.json'), 'utf8'));
    const r = runCli(['score', 'grid', '--truth', T4, '--answers', file('m.jsonl', [{ id: 1, answer: mapping, given: ['11', '0'] }])]);
    expect(jsonLines(r.stdout)[0]).toEqual({ id: '1', ...single });
  });

  it('bad lines are named by line number (exit 2)', () => {
    const g = (name: string, lines: unknown[]) => ['score', 'grid', '--truth', TRUTH, '--answers', file(name, lines)];
    expectBadInput(g('c1.jsonl', [{ id: 'a', answer: perfect }, { id: 'b' }]), /answers \S+c1\.jsonl: line 2: "answer" must be the answer text or a JSON grid\/mapping$/);
    expectBadInput(g('c2.jsonl', [{ id: 'a', answer: perfect, given: ['no-such-piece'] }]), /line 1: given/);
    expectBadInput(g('c3.jsonl', ['[1]']), /line 1: expected a JSON object$/);
    expectBadInput([...g('c4.jsonl', [{ id: 'a', answer: perfect }]), '--answer', F('grid-answer-perfect.txt')], /give one of --answer/);
  });
});
