import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { formatCalibration } from '../../src/cli/format/calibration.ts';
import { normaliseLabel, parseLabels, parseLabelsCsv, parseLabelsJsonl, type LabelRow } from '../../src/domain/labels.ts';

const jl = (...rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect((e as { code?: string }).code).toBe('bad_input');
    return (e as Error).message;
  }
  throw new Error('expected a bad-input error');
};

describe('label files', () => {
  it('parses JSON Lines, keeping line numbers and stringifying numeric ids', () => {
    const text = `${jl({ answer: 7, item: 1, rater: 'h1', kind: 'human', label: 'correct' })}\n\n${jl({ answer: 'a', rater: 'j', kind: 'judge', label: 0.5, model: 'm' })}\n`;
    expect(parseLabelsJsonl(text, 'x.jsonl')).toEqual([
      { answer: '7', item: '1', rater: 'h1', kind: 'human', label: 'correct', line: 1 },
      { answer: 'a', model: 'm', rater: 'j', kind: 'judge', label: 0.5, line: 3 },
    ]);
  });

  it('parses CSV with a header, quoted cells and empty optional cells', () => {
    const text = 'answer,item,model,rater,kind,label\na1,i1,,h1,human,correct\n"a,2",i1,m,"j ""x""",judge,partial\n';
    expect(parseLabelsCsv(text, 'x.csv')).toEqual([
      { answer: 'a1', item: 'i1', rater: 'h1', kind: 'human', label: 'correct', line: 2 },
      { answer: 'a,2', item: 'i1', model: 'm', rater: 'j "x"', kind: 'judge', label: 'partial', line: 3 },
    ]);
    // parseLabels picks the format by extension.
    expect(parseLabels(text, 'labels.CSV')).toHaveLength(2);
  });

  it('names file, line and field on bad input', () => {
    expect(errorOf(() => parseLabelsJsonl('{"answer":"a"', 'L.jsonl'))).toMatch(/^L\.jsonl: line 1: not valid JSON/);
    expect(errorOf(() => parseLabelsJsonl(`${jl({ answer: 'a', rater: 'h', kind: 'robot', label: 'x' })}`, 'L.jsonl'))).toMatch(
      /^L\.jsonl: line 1: field 'kind': /,
    );
    expect(errorOf(() => parseLabelsJsonl(`\n${jl({ answer: 'a', kind: 'human', label: 'x' })}`, 'L.jsonl'))).toMatch(/^L\.jsonl: line 2: field 'rater'/);
    expect(errorOf(() => parseLabelsJsonl(`${jl({ answer: 'a', rater: 'h', kind: 'human', label: 'x', rator: 1 })}`, 'L.jsonl'))).toMatch(/line 1: row: /);
    expect(errorOf(() => parseLabelsJsonl('  \n', 'L.jsonl'))).toBe('L.jsonl: empty (no JSON lines)');
    expect(errorOf(() => parseLabelsJsonl(jl({ answer: 'a', rater: 'h', kind: 'human', label: 'great' }), 'L.jsonl', 'verdict'))).toBe(
      `L.jsonl: line 1: field 'label': "great" is not valid on the verdict scale (expected correct|partial|incorrect|missing)`,
    );
    expect(errorOf(() => parseLabelsCsv('answer,rater,kind,lable\n', 'L.csv'))).toMatch(/^L\.csv: line 1: unknown column 'lable'/);
    expect(errorOf(() => parseLabelsCsv('answer,rater,kind,label\n', 'L.csv'))).toBe('L.csv: empty (a header but no label rows)');
    expect(errorOf(() => parseLabelsCsv('answer,rater,kind,label\na,h,human\n', 'L.csv'))).toBe('L.csv: line 2: 3 cells, header has 4');
    expect(errorOf(() => parseLabelsCsv('answer,rater,kind,label\n"a,h,human,x\n', 'L.csv'))).toMatch(/line 2: malformed CSV/);
  });
});

describe('label scales', () => {
  it('verdict: the four verdicts, case-insensitive, with their points', () => {
    expect(normaliseLabel('verdict', ' Partial ', 'x')).toEqual({ category: 'partial', value: 0.5 });
    expect(normaliseLabel('verdict', 'missing', 'x')).toEqual({ category: 'missing', value: 0 });
    expect(() => normaliseLabel('verdict', 1, 'x')).toThrow(/not valid on the verdict scale/);
  });

  it('binary: true/false, pass/fail, yes/no, 1/0 all normalise', () => {
    const cats = [true, 'TRUE', 'pass', 'yes', 1, '1', false, 'fail', 'No', 0, '0'].map((l) => normaliseLabel('binary', l, 'x').category);
    expect(cats).toEqual(['true', 'true', 'true', 'true', 'true', 'true', 'false', 'false', 'false', 'false', 'false']);
    expect(() => normaliseLabel('binary', 2, 'x')).toThrow(/binary scale/);
    expect(() => normaliseLabel('binary', 'maybe', 'x')).toThrow(/binary scale/);
    expect(() => normaliseLabel('binary', 'constructor', 'x')).toThrow(/binary scale/);
  });

  it('numeric: finite numbers and numeric strings', () => {
    expect(normaliseLabel('numeric', '0.25', 'x')).toEqual({ category: 0.25, value: 0.25 });
    expect(() => normaliseLabel('numeric', true, 'x')).toThrow(/numeric scale/);
    expect(() => normaliseLabel('numeric', '', 'x')).toThrow(/numeric scale/);
  });
});

describe('calibrate — binary scale (hand-computed)', () => {
  // Ten answer-level units u1..u10, labels written in mixed forms on purpose.
  const h1 = ['pass', 'pass', 'pass', 'pass', 'pass', 'fail', 'fail', 'fail', 'fail', 'fail'];
  const h2 = [true, true, true, true, false, false, false, false, false, true];
  const j = [1, 1, 1, 0, 1, 0, 0, 0, 1, 0];
  const rows: LabelRow[] = [
    ...h1.map((label, i) => ({ answer: `u${i + 1}`, rater: 'h1', kind: 'human' as const, label })),
    ...h2.map((label, i) => ({ answer: `u${i + 1}`, rater: 'h2', kind: 'human' as const, label })),
    ...j.map((label, i) => ({ answer: `u${i + 1}`, rater: 'j', kind: 'judge' as const, label })),
  ];
  const r = calibrate(rows, { scale: 'binary' });

  it('kappa against a human and the majority; no weighted kappa on two categories', () => {
    const vs = r.judgeReports[0]!;
    // vs h1: agree on u1–3, u5–8, u10 → 8/10; judge and h1 both say true 5 times → pe = ½, kappa = 0.6.
    expect(vs.vsHumans.h1!.agreement).toBeCloseTo(0.8, 12);
    expect(vs.vsHumans.h1!.kappa!.kappa).toBeCloseTo(0.6, 12);
    expect(vs.vsHumans.h1!.confusion).toEqual({ categories: ['true', 'false'], matrix: [[4, 1], [1, 4]] });
    expect(vs.vsHumans.h1!.weightedKappa).toBeUndefined();
    // Humans tie on u5 and u10; on the other 8 the judge agrees on 6, both sides true 4 of 8 → kappa 0.5.
    expect(r.majority.ties).toBe(2);
    expect(vs.vsMajority.n).toBe(8);
    expect(vs.vsMajority.kappa!.kappa).toBeCloseTo(0.5, 12);
  });

  it('a judge well below the human agreement is flagged', () => {
    // A judge saying the opposite of h1 everywhere contradicts the majority on all 8 untied units
    // (kappa −1, interval far below 0) while the humans' alpha is 0.62.
    const flipped = rows.map((r) => (r.kind === 'judge' ? { ...r, label: h1[Number(r.answer.slice(1)) - 1] === 'pass' ? 'fail' : 'pass' } : r));
    const t = calibrate(flipped, { scale: 'binary' }).judgeReports[0]!.trust;
    expect(t.statistic).toBe('kappa');
    expect(t.value).toBeCloseTo(-1, 12);
    expect(t.withinHumanRange).toBe(false);
  });

  it('nominal alpha between the humans', () => {
    // Coincidences: o(T,T) = o(F,F) = 8, o(T,F) = o(F,T) = 2; n_T = n_F = 10, n = 20.
    // alpha = 1 − 19·4 / (2·10·10) = 0.62.
    expect(r.humanCeiling.alpha.level).toBe('nominal');
    expect(r.humanCeiling.alpha.alpha).toBeCloseTo(0.62, 12);
  });
});

describe('calibrate — numeric scale (hand-computed)', () => {
  const h1 = [1, 2, 3, 4, 5];
  const h2 = [2, 2, 3, 4, 4];
  const j = [1.5, 2, 3.5, 4, 4.5];
  const rows: LabelRow[] = [h1, h2, j].flatMap((vals, k) =>
    vals.map((label, i) => ({ answer: `u${i + 1}`, rater: ['h1', 'h2', 'j'][k]!, kind: k === 2 ? ('judge' as const) : ('human' as const), label })),
  );
  const r = calibrate(rows, { scale: 'numeric' });

  it('reports correlations, bias and MAE against the human mean; no kappa', () => {
    const m = r.judgeReports[0]!.vsMajority;
    expect(m.kappa).toBeUndefined();
    // Human mean 1.5, 2, 3, 4, 4.5; the judge differs only on u3 by +0.5 → bias = MAE = 0.1.
    expect(m.bias).toBeCloseTo(0.1, 12);
    expect(m.mae).toBeCloseTo(0.1, 12);
    // scipy.stats.pearsonr([1.5,2,3.5,4,4.5],[1.5,2,3,4,4.5]); ranks are identical → spearman 1.
    expect(m.pearson!.r).toBeCloseTo(0.9849615493669502, 10);
    expect(m.spearman!.r).toBeCloseTo(1, 12);
    expect(r.majority.ties).toBe(0);
    expect(r.consensus).toMatch(/mean/);
    expect(formatCalibration(r)).toMatch(/human mean\s+5\s+0\.985\s+\[[0-9.]+, [0-9.]+\]\s+1\.000\s+0\.100\s+0\.100/);
  });

  it('interval alpha between the humans', () => {
    // Per-unit squared differences 1, 0, 0, 0, 1 (each counted twice): D_o = 4/10. Pooled values
    // 1,2,3,4,5,2,2,3,4,4 have mean 3 and Σ(v − 3)² = 14, so D_e = 2·10·14/(10·9) = 28/9.
    // alpha = 1 − 0.4·9/28 = 61/70.
    expect(r.humanCeiling.alpha.level).toBe('interval');
    expect(r.humanCeiling.alpha.alpha).toBeCloseTo(61 / 70, 12);
  });
});

describe('calibrate — bad input', () => {
  const h = (answer: string, rater: string, label: string, line?: number): LabelRow => ({ answer, item: 'i', rater, kind: 'human', label, ...(line ? { line } : {}) });
  const jd = (answer: string, rater: string, label: string): LabelRow => ({ answer, item: 'i', rater, kind: 'judge', label });

  it('rejects each problem with a clear line', () => {
    expect(errorOf(() => calibrate([jd('a', 'j', 'correct')], { scale: 'verdict' }))).toMatch(/no human rater/);
    expect(errorOf(() => calibrate([h('a', 'h', 'correct')], { scale: 'verdict', judge: 'j' }))).toBe(
      "labels: no labels from judge 'j' (judges present: none)",
    );
    expect(errorOf(() => calibrate([h('a', 'h', 'correct')], { scale: 'verdict', judge: 'h' }))).toMatch(/'h' is a human rater/);
    expect(errorOf(() => calibrate([h('a', 'h', 'correct')], { scale: 'likert' as 'verdict' }))).toBe(
      "unknown scale 'likert' (expected verdict|binary|numeric)",
    );
    expect(errorOf(() => calibrate([h('a', 'h', 'fine', 4)], { scale: 'verdict', source: 'L.jsonl' }))).toMatch(/^L\.jsonl: line 4: field 'label'/);
    expect(errorOf(() => calibrate([h('a', 'h', 'correct', 2), h('a', 'h', 'partial', 9)], { scale: 'verdict', source: 'L.jsonl' }))).toBe(
      "L.jsonl: line 9: rater 'h' labels answer 'a' item 'i' twice (first at line 2)",
    );
    expect(errorOf(() => calibrate([h('a', 'x', 'correct'), jd('b', 'x', 'correct')], { scale: 'verdict' }))).toBe(
      "labels: row 2: rater 'x' is kind 'judge' here but 'human' at row 1",
    );
    expect(
      errorOf(() => calibrate([{ ...h('a', 'h', 'correct'), model: 'm1' }, { ...h('a', 'g', 'correct'), model: 'm2' }], { scale: 'verdict' })),
    ).toMatch(/answer 'a' is attributed to model 'm2' here but 'm1'/);
    expect(errorOf(() => calibrate([h('a', 'h', 'correct')], { scale: 'verdict', weights: { other: 1 } }))).toMatch(/no weight for item 'i'/);
    const proto = { ...h('a', 'h', 'correct'), item: 'toString' };
    expect(errorOf(() => calibrate([proto], { scale: 'verdict', weights: { other: 1 } }))).toMatch(/no weight for item 'toString'/);
    expect(errorOf(() => calibrate([], { scale: 'verdict' }))).toBe('labels: no label rows');
  });

  it('names that are Object.prototype members stay ordinary keys', () => {
    const r = calibrate(
      [{ ...h('a', '__proto__', 'correct'), model: 'constructor' }, h('a', 'h2', 'correct'), jd('a', 'j', 'partial')],
      { scale: 'verdict' },
    );
    const j = JSON.parse(JSON.stringify(r.judgeReports[0]));
    expect(Object.keys(j.vsHumans)).toEqual(['__proto__', 'h2']);
    expect(j.vsHumans.h2.n).toBe(1);
    expect(Object.keys(j.byModel)).toEqual(['constructor']);
  });

  it('without judge labels it still reports the human ceiling', () => {
    const r = calibrate([h('a', 'h1', 'correct'), h('a', 'h2', 'correct'), h('b', 'h1', 'partial'), h('b', 'h2', 'missing')], { scale: 'verdict' });
    expect(r.judgeReports).toEqual([]);
    expect(r.notes[0]).toMatch(/no judge labels/);
    expect(r.humanCeiling.pairs['h1 ~ h2']!.agreement).toBe(0.5);
  });
});
