import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { parseLabels } from '../../src/domain/labels.ts';

/**
 * A label file's rows may name their answer's rubric (`rubric`), and the per-item table is then per
 * (rubric, item): two rubrics sharing the item id 'sky' (as ~25 bundled ImageInWords rubrics do) are two
 * rows. Human h1: sky correct, incorrect, correct, incorrect on answers L0–L3 (rubric lake) and C0–C3
 * (rubric city); judge j gives the human verdict on the lake answers, the opposite on the city answers.
 *   lake/sky: agreement 1; po 1, pe (2·2 + 2·2)/16 = 1/2 → κ = 1
 *   city/sky: agreement 0; po 0, pe 1/2 → κ = −1        (pooled: agreement 0.5, κ 0)
 */
const HUMAN = ['correct', 'incorrect', 'correct', 'incorrect'];
const flip = (v: string) => (v === 'correct' ? 'incorrect' : 'correct');
const lines = (csv: boolean) => {
  const rows = (['lake', 'city'] as const).flatMap((rubric) =>
    HUMAN.flatMap((h, i) => {
      const answer = `${rubric[0]!.toUpperCase()}${i}`;
      const judge = rubric === 'lake' ? h : flip(h);
      return [
        { answer, rubric, item: 'sky', rater: 'h1', kind: 'human', label: h },
        { answer, rubric, item: 'sky', rater: 'j', kind: 'judge', label: judge },
      ];
    }),
  );
  if (!csv) return rows.map((r) => JSON.stringify(r)).join('\n');
  return ['answer,rubric,item,rater,kind,label', ...rows.map((r) => [r.answer, r.rubric, r.item, r.rater, r.kind, r.label].join(','))].join('\n');
};

const figures = (report: ReturnType<typeof calibrate>) =>
  report.judgeReports[0]!.byItem.map((r) => ({ rubric: r.rubric, item: r.item, n: r.n, agreement: r.vsMajority.agreement, kappa: r.vsMajority.kappa?.kappa }));

describe('calibrate: per-item figures per (rubric, item)', () => {
  for (const [name, csv] of [['labels.jsonl', false], ['labels.csv', true]] as const) {
    it(`${name}: each rubric's sky is its own row with its own agreement and kappa`, () => {
      const report = calibrate(parseLabels(lines(csv), name, 'verdict'), { scale: 'verdict' });
      expect(report.items).toBe(2);
      expect(figures(report)).toEqual([
        { rubric: 'city', item: 'sky', n: 4, agreement: 0, kappa: -1 },
        { rubric: 'lake', item: 'sky', n: 4, agreement: 1, kappa: 1 },
      ]);
    });
  }

  it('rows without a rubric keep one row per item id (rubric null), as before', () => {
    const rows = parseLabels(lines(false), 'l.jsonl', 'verdict').map(({ rubric: _, ...r }) => r);
    expect(figures(calibrate(rows, { scale: 'verdict' }))).toEqual([{ rubric: null, item: 'sky', n: 8, agreement: 0.5, kappa: 0 }]);
  });

  it('an answer named with two rubrics is bad input', () => {
    const text = [
      JSON.stringify({ answer: 'a1', rubric: 'lake', item: 'sky', rater: 'h1', kind: 'human', label: 'correct' }),
      JSON.stringify({ answer: 'a1', rubric: 'city', item: 'water', rater: 'h1', kind: 'human', label: 'correct' }),
    ].join('\n');
    expect(() => calibrate(parseLabels(text, 'l.jsonl', 'verdict'), { scale: 'verdict', source: 'l.jsonl' })).toThrow(
      "l.jsonl: line 2: answer 'a1' is of rubric 'city' here but 'lake' elsewhere",
    );
  });
});
