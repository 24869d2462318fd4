import type { Point } from './pieces.ts';
import { pointSegmentDistance } from './polygon.ts';

/**
 * Hausdorff distance between two boundaries (sets of closed rings): the farthest any point of one
 * boundary is from the other. Along a segment the distance to the other boundary is a minimum of convex
 * functions, so its maximum sits at an end or at a kink between two of them; each segment is sampled
 * finely and every sampled peak refined by golden-section search, which lands on such a kink.
 */
export function hausdorffDistance(a: Point[][], b: Point[][]): number {
  return Math.max(directed(a, b), directed(b, a));
}

type Segment = [Point, Point];

const segments = (rings: Point[][]): Segment[] =>
  rings.flatMap((r) => r.map((p, i): Segment => [p, r[(i + 1) % r.length]!]));

function directed(from: Point[][], to: Point[][]): number {
  const target = segments(to);
  if (target.length === 0) return 0;
  const distTo = (p: Point) => {
    let m = Infinity;
    for (const [c, d] of target) m = Math.min(m, pointSegmentDistance(p, c, d));
    return m;
  };
  let worst = 0;
  for (const [p, q] of segments(from)) {
    const at = (t: number): Point => [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
    const f = (t: number) => distTo(at(t));
    const n = 64;
    const v = Array.from({ length: n + 1 }, (_, k) => f(k / n));
    for (let k = 0; k <= n; k++) {
      worst = Math.max(worst, v[k]!);
      const isPeak = (k === 0 || v[k]! > v[k - 1]!) && (k === n || v[k]! >= v[k + 1]!);
      if (isPeak && v[k]! > 0) worst = Math.max(worst, goldenMax(f, Math.max(0, (k - 1) / n), Math.min(1, (k + 1) / n)));
    }
  }
  return worst;
}

function goldenMax(f: (t: number) => number, lo: number, hi: number): number {
  const g = (Math.sqrt(5) - 1) / 2;
  let a = lo;
  let b = hi;
  let c = b - g * (b - a);
  let d = a + g * (b - a);
  let fc = f(c);
  let fd = f(d);
  for (let i = 0; i < 60 && b - a > 1e-12; i++) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = f(d);
    }
  }
  return Math.max(fc, fd);
}
