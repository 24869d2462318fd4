import { CANONICAL, type PieceType, type Point } from './pieces.ts';
import { area, dist, perimeter } from './polygon.ts';

/**
 * Is a placed piece congruent to its canonical piece (rotation, translation and reflection allowed,
 * no stretching)? Three tests, each with tolerance τ on lengths:
 *   area       |A − A₀| ≤ τ · P₀      (a vertex moved by τ changes the area by at most about τ·P₀)
 *   perimeter  |P − P₀| ≤ τ · n
 *   distances  the n×n matrix of vertex distances equals the canonical one, entry by entry within τ,
 *              for some relabelling of the vertices that walks round the polygon (either direction).
 * The distance matrix pins the shape down to congruence; area and perimeter name the failure plainly.
 */
export function rigidProblems(label: string, type: PieceType, ring: Point[], tol: number): string[] {
  const canon = CANONICAL[type];
  const n = canon.length;
  if (ring.length !== n) {
    return [`${label}: has ${ring.length} corners, a ${type} has ${n}`];
  }
  const problems: string[] = [];
  const a = area(ring);
  const a0 = area(canon);
  const p = perimeter(ring);
  const p0 = perimeter(canon);
  if (Math.abs(a - a0) > tol * p0) problems.push(`${label}: area ${fmt(a)}, a ${type} has ${fmt(a0)}`);
  if (Math.abs(p - p0) > tol * n) problems.push(`${label}: perimeter ${fmt(p)}, a ${type} has ${fmt(p0)}`);
  const gap = distanceMismatch(ring, canon);
  if (gap > tol) problems.push(`${label}: vertex distances differ from a ${type}'s by up to ${fmt(gap)} (stretched or distorted)`);
  return problems;
}

/** Smallest, over the 2n cyclic relabellings, of the largest entry-wise distance difference. */
function distanceMismatch(ring: Point[], canon: Point[]): number {
  const n = canon.length;
  let best = Infinity;
  for (let shift = 0; shift < n; shift++) {
    for (const dir of [1, -1]) {
      const at = (i: number) => ring[(((shift + dir * i) % n) + n) % n]!;
      let worst = 0;
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          worst = Math.max(worst, Math.abs(dist(at(i), at(j)) - dist(canon[i]!, canon[j]!)));
        }
      }
      best = Math.min(best, worst);
    }
  }
  return best;
}

const fmt = (x: number): string => String(Number(x.toFixed(4)));
