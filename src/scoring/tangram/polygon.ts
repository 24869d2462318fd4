import type { Point } from './pieces.ts';

/** Plane geometry on simple rings (arrays of vertices, not closed: the last vertex ≠ the first). */

export const dist = (p: Point, q: Point): number => Math.hypot(p[0] - q[0], p[1] - q[1]);

const cross = (o: Point, a: Point, b: Point): number => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/**
 * Shoelace area, positive when counter-clockwise. Taken about the first vertex: far from the origin
 * (a figure translated by 1e5) the products x·y would otherwise cancel away the low digits.
 */
export function signedArea(ring: Point[]): number {
  if (ring.length === 0) return 0;
  const [ox, oy] = ring[0]!;
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i]!;
    const q = ring[(i + 1) % ring.length]!;
    s += (p[0] - ox) * (q[1] - oy) - (q[0] - ox) * (p[1] - oy);
  }
  return s / 2;
}

export const area = (ring: Point[]): number => Math.abs(signedArea(ring));

export function perimeter(ring: Point[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) s += dist(ring[i]!, ring[(i + 1) % ring.length]!);
  return s;
}

export function pointSegmentDistance(p: Point, a: Point, b: Point): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** Closed segments ab and cd share a point (touching counts). */
export function segmentsIntersect(a: Point, b: Point, c: Point, d: Point): boolean {
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  const on = (p: Point, q: Point, r: Point, o: number) =>
    o === 0 && Math.min(p[0], q[0]) <= r[0] && r[0] <= Math.max(p[0], q[0]) && Math.min(p[1], q[1]) <= r[1] && r[1] <= Math.max(p[1], q[1]);
  return on(c, d, a, d1) || on(c, d, b, d2) || on(a, b, c, d3) || on(a, b, d, d4);
}

export function segmentDistance(a: Point, b: Point, c: Point, d: Point): number {
  if (segmentsIntersect(a, b, c, d)) return 0;
  return Math.min(pointSegmentDistance(a, c, d), pointSegmentDistance(b, c, d), pointSegmentDistance(c, a, b), pointSegmentDistance(d, a, b));
}

/** Even–odd rule; points on the boundary may fall either way (callers only use strict interiors). */
export function pointInRing(p: Point, ring: Point[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Smallest distance between two polygons (as regions): 0 when they touch or one holds the other. */
export function ringDistance(r: Point[], s: Point[]): number {
  if (pointInRing(r[0]!, s) || pointInRing(s[0]!, r)) return 0;
  let best = Infinity;
  for (let i = 0; i < r.length; i++) {
    for (let j = 0; j < s.length; j++) {
      best = Math.min(best, segmentDistance(r[i]!, r[(i + 1) % r.length]!, s[j]!, s[(j + 1) % s.length]!));
      if (best === 0) return 0;
    }
  }
  return best;
}

/**
 * Drops a repeated closing vertex, vertices within `eps` of their predecessor and vertices within `eps`
 * of the line through their neighbours, so "[[0,0],[1,0],[1,0],[2,0],[0,1],[0,0]]" reads as a triangle.
 */
export function cleanRing(ring: Point[], eps: number): Point[] {
  let out = ring.filter((p, i) => i === 0 || dist(p, ring[i - 1]!) > eps);
  while (out.length > 1 && dist(out[0]!, out[out.length - 1]!) <= eps) out = out.slice(0, -1);
  let changed = true;
  while (changed && out.length > 3) {
    changed = false;
    for (let i = 0; i < out.length; i++) {
      const prev = out[(i - 1 + out.length) % out.length]!;
      const next = out[(i + 1) % out.length]!;
      if (pointSegmentDistance(out[i]!, prev, next) <= eps) {
        out = out.filter((_, k) => k !== i);
        changed = true;
        break;
      }
    }
  }
  return out;
}

/** No two edges meet except neighbours at their shared vertex. */
export function isSimpleRing(ring: Point[]): boolean {
  const n = ring.length;
  if (n < 3) return false;
  for (let i = 0; i < n; i++) {
    const a = ring[i]!;
    const b = ring[(i + 1) % n]!;
    for (let j = i + 1; j < n; j++) {
      const c = ring[j]!;
      const d = ring[(j + 1) % n]!;
      const adjacent = j === i + 1 || (i === 0 && j === n - 1);
      if (adjacent) {
        // neighbours may only share their common vertex: folding back onto each other is a crossing
        const shared = j === i + 1 ? b : a;
        const far1 = j === i + 1 ? a : b;
        const far2 = j === i + 1 ? d : c;
        if (cross(shared, far1, far2) === 0 && (far1[0] - shared[0]) * (far2[0] - shared[0]) + (far1[1] - shared[1]) * (far2[1] - shared[1]) > 0) {
          return false;
        }
      } else if (segmentsIntersect(a, b, c, d)) {
        return false;
      }
    }
  }
  return true;
}
