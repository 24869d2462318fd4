import type { Point } from './pieces.ts';
import { area, pointSegmentDistance } from './polygon.ts';

/**
 * Floating-point noise control for the boolean operations. A valid assembly turned by an arbitrary angle
 * has corners that should coincide but differ in the last bits, and corners that should lie on a
 * neighbour's edge (T-junctions) but sit 1e-16 off it. polyclip-ts computes exactly on the numbers it is
 * given, so that noise becomes slivers, cracks and separate faces in the union, and the figure's
 * "boundary" then runs through its interior (Hausdorff 0.25 instead of 0), or the sweep fails outright.
 *
 * Before clipping, every ring of one check (the pieces and the target together) is brought onto one
 * shared frame:
 *   1. coordinates are rounded to a power-of-two grid well below ε (no subnormals, few bits);
 *   2. vertices within ε of an earlier vertex become that vertex (near-coincident corners merge);
 *   3. a vertex within ε of another ring's edge is inserted into that edge, so a shared edge is made
 *      of identical segments on both sides.
 * After clipping, boundary rings lose vertices whose turn is thinner than ε (collinear points and
 * zero-width spikes) and rings with area below ε·L are dropped (slivers).
 *
 * ε = 1e-9 · L, with L the larger side of the bounding box of all rings (at least 1e-6), and never less
 * than 1e-13 · (largest |coordinate|), since the noise of a far-translated figure grows with its distance
 * from the origin. For tangram pieces cut from a unit square ε is 1e-9 — far below the scoring tolerance
 * τ (0.005 by default), so only noise is ever merged: answers that are off by a visible amount (rounded
 * coordinates, a shifted piece) are scored exactly as written.
 */
export const RELATIVE_NOISE = 1e-9;
const ABSOLUTE_NOISE = 1e-13;
const MIN_EXTENT = 1e-6;

export interface Noise {
  /** Distance below which two points are one point, and a point is on a segment. */
  eps: number;
  /** Grid step of the coordinate rounding (a power of two, eps/64 or finer). */
  grid: number;
  /** Rings smaller than this are slivers. */
  area: number;
}

export function noiseOf(rings: readonly Point[][]): Noise {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  let far = 0;
  for (const ring of rings) {
    for (const [x, y] of ring) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
      far = Math.max(far, Math.abs(x), Math.abs(y));
    }
  }
  const extent = Math.max(maxX - minX, maxY - minY, MIN_EXTENT) || MIN_EXTENT;
  const eps = Math.max(RELATIVE_NOISE * extent, ABSOLUTE_NOISE * far);
  return { eps, grid: 2 ** Math.floor(Math.log2(eps / 64)), area: eps * extent };
}

export const snapToGrid = ([x, y]: Point, grid: number): Point => [Math.round(x / grid) * grid || 0, Math.round(y / grid) * grid || 0];

/** Consecutive repeats (and a closing repeat) removed; identity of points is exact equality. */
function dedupe(ring: Point[]): Point[] {
  const out = ring.filter((p, i) => i === 0 || p[0] !== ring[i - 1]![0] || p[1] !== ring[i - 1]![1]);
  while (out.length > 1 && out[0]![0] === out[out.length - 1]![0] && out[0]![1] === out[out.length - 1]![1]) out.pop();
  return out;
}

/** Steps 1–3 above on every ring, keeping their order (ring i of the output is ring i of the input). */
export function snapRings(rings: readonly Point[][], noise: Noise): Point[][] {
  const { eps, grid } = noise;
  // Merge within ε through a hash of ε-sized cells: a point only needs the 3 × 3 cells around it.
  const cells = new Map<string, Point[]>();
  const reps: Point[] = [];
  const merge = (raw: Point): Point => {
    const p = snapToGrid(raw, grid);
    const cx = Math.floor(p[0] / eps);
    const cy = Math.floor(p[1] / eps);
    for (let i = -1; i <= 1; i++) {
      for (let j = -1; j <= 1; j++) {
        for (const q of cells.get(`${cx + i},${cy + j}`) ?? []) if (Math.hypot(p[0] - q[0], p[1] - q[1]) <= eps) return q;
      }
    }
    const key = `${cx},${cy}`;
    cells.set(key, [...(cells.get(key) ?? []), p]);
    reps.push(p);
    return p;
  };
  const merged = rings.map((ring) => dedupe(ring.map(merge)));
  // T-junctions: vertices sorted by x, so each edge only looks at those inside its x-range.
  const byX = [...reps].sort((a, b) => a[0] - b[0]);
  const firstAtOrAfter = (x: number) => {
    let lo = 0;
    let hi = byX.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byX[mid]![0] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return merged.map((ring) => {
    if (ring.length < 2) return ring;
    const out: Point[] = [];
    ring.forEach((a, i) => {
      const b = ring[(i + 1) % ring.length]!;
      out.push(a);
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const len2 = dx * dx + dy * dy;
      const on: [number, Point][] = [];
      const loY = Math.min(a[1], b[1]) - eps;
      const hiY = Math.max(a[1], b[1]) + eps;
      const hiX = Math.max(a[0], b[0]) + eps;
      for (let k = firstAtOrAfter(Math.min(a[0], b[0]) - eps); k < byX.length && byX[k]![0] <= hiX; k++) {
        const v = byX[k]!;
        if (v === a || v === b || v[1] < loY || v[1] > hiY) continue;
        const t = ((v[0] - a[0]) * dx + (v[1] - a[1]) * dy) / len2;
        if (t > 0 && t < 1 && pointSegmentDistance(v, a, b) <= eps) on.push([t, v]);
      }
      on.sort((x, y) => x[0] - y[0]);
      for (const [, v] of on) out.push(v);
    });
    return dedupe(out);
  });
}

/** The height of corner b over the longer of its two edges: 0 for a straight pass or a spike. */
function turnHeight(a: Point, b: Point, c: Point): number {
  const cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  const longer = Math.max(Math.hypot(b[0] - a[0], b[1] - a[1]), Math.hypot(c[0] - b[0], c[1] - b[1]));
  return longer === 0 ? 0 : Math.abs(cross) / longer;
}

/** A ring without near-repeated points, collinear points and zero-width spikes; null when nothing is left. */
export function cleanNoise(ring: Point[], noise: Noise): Point[] | null {
  let out = ring.slice();
  let changed = true;
  while (changed && out.length >= 3) {
    changed = false;
    for (let i = 0; i < out.length && out.length >= 3; i++) {
      const prev = out[(i - 1 + out.length) % out.length]!;
      const next = out[(i + 1) % out.length]!;
      const p = out[i]!;
      if (Math.hypot(p[0] - prev[0], p[1] - prev[1]) <= noise.eps || turnHeight(prev, p, next) <= noise.eps) {
        out.splice(i, 1);
        changed = true;
        i--;
      }
    }
  }
  return out.length >= 3 && area(out) >= noise.area ? out : null;
}

/** Every ring of a multipolygon cleaned; a polygon whose outer ring is a sliver goes with its holes. */
export function cleanMultiPolygon(mp: Point[][][], noise: Noise): Point[][][] {
  const out: Point[][][] = [];
  for (const [outer, ...holes] of mp) {
    const o = cleanNoise(outer!, noise);
    if (!o) continue;
    out.push([o, ...holes.map((h) => cleanNoise(h, noise)).filter((h): h is Point[] => h !== null)]);
  }
  return out;
}

