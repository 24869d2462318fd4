// `npm run bench -- stats`: Cohen's kappa on 1,000,000 label pairs and Krippendorff's alpha on
// 10,000 units × 5 raters, each beside a straightforward reference implementation in the same run.
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cohenKappa } from '../src/stats/kappa.ts';
import { krippendorffAlpha } from '../src/stats/krippendorff.ts';
import { mulberry32, randomInt } from '../src/stats/random.ts';

type Label = string;
const VERDICTS = ['correct', 'partial', 'incorrect', 'missing'];

/** Rater b copies rater a 70% of the time, otherwise picks at random. */
function labelPairs(n: number, seed: number): [Label[], Label[]] {
  const rng = mulberry32(seed);
  const a: Label[] = new Array(n);
  const b: Label[] = new Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = VERDICTS[randomInt(rng, 4)]!;
    b[i] = rng() < 0.7 ? a[i]! : VERDICTS[randomInt(rng, 4)]!;
  }
  return [a, b];
}

/** Raters × units, 10% missing, each unit's raters close to its true value on a 1–5 scale. */
function ratingMatrix(units: number, raters: number, seed: number): (number | null)[][] {
  const rng = mulberry32(seed);
  const truth = Array.from({ length: units }, () => 1 + randomInt(rng, 5));
  return Array.from({ length: raters }, () =>
    truth.map((t) => (rng() < 0.1 ? null : rng() < 0.6 ? t : Math.min(5, Math.max(1, t + (rng() < 0.5 ? -1 : 1))))),
  );
}

/** Reference Cohen's kappa: a Map of "a|b" strings, then the textbook sums. */
function referenceKappa(a: Label[], b: Label[]): number {
  const cells = new Map<string, number>();
  const rows = new Map<string, number>();
  const cols = new Map<string, number>();
  for (let i = 0; i < a.length; i++) {
    const key = `${a[i]}|${b[i]}`;
    cells.set(key, (cells.get(key) ?? 0) + 1);
    rows.set(a[i]!, (rows.get(a[i]!) ?? 0) + 1);
    cols.set(b[i]!, (cols.get(b[i]!) ?? 0) + 1);
  }
  const n = a.length;
  const cats = new Set([...rows.keys(), ...cols.keys()]);
  let po = 0;
  let pe = 0;
  for (const c of cats) {
    po += (cells.get(`${c}|${c}`) ?? 0) / n;
    pe += ((rows.get(c) ?? 0) / n) * ((cols.get(c) ?? 0) / n);
  }
  return (po - pe) / (1 - pe);
}

/** Reference alpha: coincidences in a Map keyed "c|k" from every ordered pair of values in each unit. */
function referenceAlphaInterval(data: (number | null)[][]): number {
  const o = new Map<string, number>();
  const units = data[0]!.length;
  for (let u = 0; u < units; u++) {
    const values = data.map((row) => row[u]).filter((v): v is number => v !== null);
    const m = values.length;
    if (m < 2) continue;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        if (i === j) continue;
        const key = `${values[i]}|${values[j]}`;
        o.set(key, (o.get(key) ?? 0) + 1 / (m - 1));
      }
    }
  }
  const marg = new Map<number, number>();
  for (const [key, v] of o) {
    const c = Number(key.split('|')[0]);
    marg.set(c, (marg.get(c) ?? 0) + v);
  }
  const n = [...marg.values()].reduce((s, v) => s + v, 0);
  let dObs = 0;
  for (const [key, v] of o) {
    const [c, k] = key.split('|').map(Number) as [number, number];
    dObs += v * (c - k) ** 2;
  }
  let dExp = 0;
  for (const [c, nc] of marg) for (const [k, nk] of marg) dExp += nc * nk * (c - k) ** 2;
  return 1 - ((n - 1) * dObs) / dExp;
}

/** Median wall-clock and CPU milliseconds over `runs` after a warm-up (CPU time is what load does not inflate). */
function time<T>(fn: () => T, runs = 7): { ms: number; cpu: number; value: T } {
  let value = fn(); // warm-up: JIT and caches
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    value = fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(runs / 2)]!;
  return { ms: median(wall), cpu: median(cpu), value };
}

type Timed = { ms: number; cpu: number; value: number | null };

function report(name: string, target: number, fast: Timed, ref: Timed): boolean {
  const same = fast.value !== null && ref.value !== null && Math.abs(fast.value - ref.value) < 1e-9;
  const fmt = (t: Timed) => `${t.ms.toFixed(1).padStart(8)} ms wall ${t.cpu.toFixed(1).padStart(8)} ms CPU   value ${t.value}`;
  console.log(`\n${name}`);
  console.log(`  assay      ${fmt(fast)}`);
  console.log(`  reference  ${fmt(ref)}`);
  console.log(`  speed-up   ${(ref.ms / fast.ms).toFixed(1)}× wall, ${(ref.cpu / fast.cpu).toFixed(1)}× CPU   same value: ${same ? 'yes' : 'NO'}`);
  console.log(`  target     < ${target} ms: ${fast.ms < target ? 'met' : 'MISSED'} (wall), ${fast.cpu < target ? 'met' : 'MISSED'} (CPU)`);
  return same;
}

console.log('assay stats bench (median of 7 runs after a warm-up, one process)');
// Wall-clock rises with machine load; CPU time and the ratio to the reference are the stable figures.
console.log(`machine: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const [a, b] = labelPairs(1_000_000, 1);
const k1 = report("Cohen's kappa, 1,000,000 label pairs (4 string categories)", 100, time(() => cohenKappa(a, b).kappa), time(() => referenceKappa(a, b)));
// Labels read from a file are separate string objects rather than four shared literals.
const [ja, jb] = [JSON.parse(JSON.stringify(a)) as Label[], JSON.parse(JSON.stringify(b)) as Label[]];
const [na, nb] = [a.map((v) => VERDICTS.indexOf(v)), b.map((v) => VERDICTS.indexOf(v))];
const parsed = time(() => cohenKappa(ja, jb).kappa);
const numbers = time(() => cohenKappa(na, nb).kappa);
console.log(`  (same pairs parsed from JSON ${parsed.ms.toFixed(1)} ms wall / ${parsed.cpu.toFixed(1)} ms CPU; as numbers 0–3 ${numbers.ms.toFixed(1)} / ${numbers.cpu.toFixed(1)} ms)`);
const data = ratingMatrix(10_000, 5, 2);
const k2 = report(
  "Krippendorff's alpha (interval), 10,000 units × 5 raters, 10% missing",
  200,
  time(() => krippendorffAlpha(data, 'interval').alpha),
  time(() => referenceAlphaInterval(data)),
);
const nominal = time(() => krippendorffAlpha(data, 'nominal').alpha);
const ordinal = time(() => krippendorffAlpha(data, 'ordinal').alpha);
console.log(`  (same data, nominal ${nominal.ms.toFixed(1)} ms, ordinal ${ordinal.ms.toFixed(1)} ms wall)`);
if (!k1 || !k2) process.exitCode = 1;
