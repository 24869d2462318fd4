// Calibration on a large synthetic label set, one run. Prints the cost of one bootstrap resample of the
// human–human alpha two ways — re-running stats/krippendorff on the resampled labels vs summing the
// per-answer coincidence statistics (what calibrate does) — their ratio, and the whole calibrate() time.
import { alphaFromSums, clusterSums, sumAll } from '../src/analysis/calibration/alpha-sums.ts';
import { calibrate } from '../src/analysis/calibration/index.ts';
import type { LabelRow } from '../src/domain/labels.ts';
import { krippendorffAlpha } from '../src/stats/krippendorff.ts';
import { mulberry32, randomInt } from '../src/stats/random.ts';

const rand = mulberry32(5);
const VERDICTS = ['correct', 'partial', 'incorrect', 'missing'] as const;
const POINTS = [1, 0.5, 0, 0];
const ANSWERS = 2000;
const ITEMS = 10;
const raters: [string, LabelRow['kind'], number][] = [['h1', 'human', 0.1], ['h2', 'human', 0.15], ['h3', 'human', 0.2], ['j1', 'judge', 0.25]];
const rows: LabelRow[] = [];
for (let a = 0; a < ANSWERS; a++) {
  for (let i = 0; i < ITEMS; i++) {
    const truth = randomInt(rand, 4);
    for (const [rater, kind, noise] of raters) {
      const v = rand() < noise ? randomInt(rand, 4) : truth;
      rows.push({ answer: `a${a}`, item: `i${i}`, model: `m${a % 3}`, rater, kind, label: VERDICTS[v]! });
    }
  }
}

// Human cells per unit as point levels 0, 1, 2 (0, 0.5, 1 points), grouped by answer.
const units: { cluster: string; cells: number[] }[] = [];
for (let u = 0; u < ANSWERS * ITEMS; u++) {
  const cells = [0, 1, 2].map((h) => {
    const p = POINTS[VERDICTS.indexOf(rows[u * raters.length + h]!.label as (typeof VERDICTS)[number])]!;
    return p * 2;
  });
  units.push({ cluster: `a${Math.floor(u / ITEMS)}`, cells });
}
const byAnswer = new Map<string, number[][]>();
for (const u of units) byAnswer.set(u.cluster, [...(byAnswer.get(u.cluster) ?? []), u.cells]);
const answers = [...byAnswer.values()];
const sums = clusterSums('ordinal', 3, units);

const RESAMPLES = 20;
function time(f: (pick: number[]) => number | null): { ms: number; last: number | null } {
  let best = Infinity;
  let last: number | null = null;
  for (let round = 0; round < 3; round++) {
    const rng = mulberry32(9);
    const t0 = performance.now();
    for (let r = 0; r < RESAMPLES; r++) {
      const pick = answers.map(() => randomInt(rng, answers.length));
      last = f(pick);
    }
    best = Math.min(best, (performance.now() - t0) / RESAMPLES);
  }
  return { ms: best, last };
}
const direct = time((pick) => {
  const cols = pick.flatMap((k) => answers[k]!);
  return krippendorffAlpha([0, 1, 2].map((h) => cols.map((c) => c[h]!)), 'ordinal', { order: [0, 1, 2] }).alpha;
});
const summed = time((pick) => alphaFromSums(sumAll(pick.map((k) => sums[k]!), 3), 'ordinal', 3));

console.log(`label set: ${rows.length} labels, ${ANSWERS * ITEMS} units (${ANSWERS} answers × ${ITEMS} items), 3 humans + 1 judge`);
console.log(`one bootstrap resample of human–human alpha (best of 3 × ${RESAMPLES}):`);
console.log(`  stats/krippendorff on the resampled labels  ${direct.ms.toFixed(2)} ms  (alpha ${direct.last?.toFixed(6)})`);
console.log(`  per-answer coincidence sums                 ${summed.ms.toFixed(3)} ms  (alpha ${summed.last?.toFixed(6)}, same resample)`);
console.log(`  ratio                                       ${(direct.ms / summed.ms).toFixed(0)}×`);
const t0 = performance.now();
const report = calibrate(rows, { scale: 'verdict' });
console.log(`calibrate() whole report incl. 1000-resample alpha interval: ${((performance.now() - t0) / 1000).toFixed(2)} s` +
  ` (alpha ${report.humanCeiling.alpha.alpha?.toFixed(4)} [${report.humanCeiling.alpha.ci?.map((x) => x.toFixed(4)).join(', ')}])`);
