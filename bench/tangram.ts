// Tangram verification time per answer, one run: the classic square (axis-aligned), the same square
// turned by a random angle, an overlapping answer (pairwise clipping runs) and a syntax error. Prints
// milliseconds per answer (best of three rounds, the machine may be shared) and where the time goes.
import { boundaryRings, intersectionOf, unionOf } from '../src/scoring/tangram/clip.ts';
import { hausdorffDistance } from '../src/scoring/tangram/hausdorff.ts';
import { CLASSIC_SQUARE, type Point } from '../src/scoring/tangram/pieces.ts';
import { verifyTangram } from '../src/scoring/tangram/verify.ts';
import { mulberry32 } from '../src/stats/random.ts';
import { loadavg } from 'node:os';

const rand = mulberry32(7);
const SQUARE: Point[] = [[0, 0], [1, 0], [1, 1], [0, 1]];
const answer = (pieces: { type: string; vertices: Point[] }[]) => JSON.stringify({ pieces });
const turn = (deg: number, dx: number, dy: number) => ([x, y]: Point): Point => {
  const a = (deg * Math.PI) / 180;
  return [Math.cos(a) * x - Math.sin(a) * y + dx, Math.sin(a) * x + Math.cos(a) * y + dy];
};

const N = 40;
const turned = Array.from({ length: N }, () => {
  const f = turn(rand() * 360, rand() * 10, rand() * 10);
  return { target: { outline: SQUARE.map(f) }, text: answer(CLASSIC_SQUARE.map((p) => ({ ...p, vertices: p.vertices.map(f) }))) };
});
const overlapping = answer(CLASSIC_SQUARE.map((p, i) => (i === 4 ? { ...p, vertices: [[1, 0.25], [1, 0.75], [0.75, 0.5]] as Point[] } : p)));

function best(f: () => void, reps: number): number {
  let min = Infinity;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) f();
    min = Math.min(min, (performance.now() - t0) / reps);
  }
  return min;
}

const square = answer(CLASSIC_SQUARE);
let k = 0;
const rows: [string, number][] = [
  ['classic square, axis-aligned', best(() => verifyTangram({ outline: SQUARE }, square), N)],
  ['classic square, random turn + shift', best(() => { const t = turned[k++ % N]!; verifyTangram(t.target, t.text); }, N)],
  ['two pieces overlapping (pairwise clipping)', best(() => verifyTangram({ outline: SQUARE }, overlapping), N)],
  ['syntax error (six pieces)', best(() => verifyTangram({ outline: SQUARE }, answer(CLASSIC_SQUARE.slice(0, 6))), N)],
];
console.log(`verifyTangram, ms per answer (best of 3 rounds of ${N} answers; load average ${loadavg()[0]!.toFixed(1)}):`);
for (const [name, ms] of rows) console.log(`  ${name.padEnd(44)} ${ms.toFixed(2)} ms`);

const t = turned[0]!;
const rings = JSON.parse(t.text).pieces.map((p: { vertices: Point[] }) => p.vertices) as Point[][];
const fig = unionOf(rings);
const parts: [string, number][] = [
  ['union of the 7 pieces', best(() => unionOf(rings), N)],
  ['intersection with the target', best(() => intersectionOf(fig, t.target.outline), N)],
  ['Hausdorff distance of the boundaries', best(() => hausdorffDistance(boundaryRings(fig, 0.005), [t.target.outline]), N)],
];
console.log('where the time goes (turned square):');
for (const [name, ms] of parts) console.log(`  ${name.padEnd(44)} ${ms.toFixed(2)} ms`);
