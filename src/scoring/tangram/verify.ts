import { bbox, boundaryRings, boxesOverlap, intersectionOf, MAX_COORDINATE, multiArea, unionOf, type MultiPolygon } from './clip.ts';
import { hausdorffDistance } from './hausdorff.ts';
import { parseTangramAnswer, parseTangramTarget, type ParseStatus } from './parse.ts';
import type { Point } from './pieces.ts';
import { area, cleanRing, isSimpleRing, ringDistance } from './polygon.ts';
import { rigidProblems } from './rigid.ts';
import { cleanMultiPolygon, cleanNoise, noiseOf, snapRings } from './snap.ts';

/** Exactly the keys of `assay score tangram --json`. Checks not reached (after a syntax error) are null. */
export interface TangramResult {
  status: ParseStatus;
  syntaxError: boolean;
  rigidError: boolean | null;
  overlapError: boolean | null;
  connectivityError: boolean | null;
  iou: number | null;
  hausdorff: number | null;
  validPass: boolean;
  success: boolean;
  problems: string[];
}

export interface TangramOptions {
  /** success needs IoU ≥ this (default 0.99). */
  iouThreshold?: number;
  /** τ, in units of the unit square's side (default 0.005); see docs/tangram-scoring.md for every use. */
  tolerance?: number;
}

export const DEFAULT_IOU_THRESHOLD = 0.99;
export const DEFAULT_TOLERANCE = 0.005;

/**
 * Verifies an answer against a target silhouette, in order: syntax → rigid geometry → physical
 * (overlap, connectivity) → silhouette (IoU, Hausdorff). Every check after syntax runs even when an
 * earlier one failed, so the result says everything that is wrong, not only the first thing.
 * A bad target throws AssayError('bad_input'); a bad answer never throws.
 */
export function verifyTangram(target: { outline: unknown[] }, answerText: string, opts: TangramOptions = {}): TangramResult {
  const { outline } = parseTangramTarget(target);
  const threshold = opts.iouThreshold ?? DEFAULT_IOU_THRESHOLD;
  const tol = opts.tolerance ?? DEFAULT_TOLERANCE;
  const parsed = parseTangramAnswer(answerText);
  if (!parsed.pieces) {
    return {
      status: 'syntax_error',
      syntaxError: true,
      rigidError: null,
      overlapError: null,
      connectivityError: null,
      iou: null,
      hausdorff: null,
      validPass: false,
      success: false,
      problems: parsed.problems,
    };
  }
  const problems = [...parsed.problems];
  const pieces = parsed.pieces.map((p) => ({ ...p, label: `piece ${p.id} (${p.type})`, ring: cleanRing(p.vertices, tol) }));

  const rigid = pieces.flatMap((p) => rigidProblems(p.label, p.type, p.ring, tol));
  problems.push(...rigid);
  // a piece reduced to a point or a segment is nothing to clip; it has already failed the rigid check
  const solid = pieces.filter((p) => p.ring.length >= 3);

  const groups = touchingGroups(solid, tol);
  const disconnected = groups.length > 1;
  if (disconnected) {
    problems.push(`pieces fall apart into ${groups.length} separate groups: ${groups.map((g) => `[${g.join(', ')}]`).join(' ')}`);
  }

  const g = clipChecks(solid, outline, tol);
  if ('error' in g) problems.push(g.error);
  else problems.push(...g.overlaps, ...(g.note ? [g.note] : []));
  const overlapError = 'error' in g ? null : g.overlaps.length > 0;
  const iou = 'error' in g ? null : g.iou;
  const validPass = rigid.length === 0 && overlapError === false && !disconnected;
  if (iou !== null && iou < threshold) problems.push(`silhouette IoU ${iou.toFixed(4)} is below ${threshold}`);
  return {
    status: parsed.status,
    syntaxError: false,
    rigidError: rigid.length > 0,
    overlapError,
    connectivityError: disconnected,
    iou,
    hausdorff: 'error' in g ? null : g.hausdorff,
    validPass,
    success: validPass && iou !== null && iou >= threshold,
    problems,
  };
}

interface Solid {
  label: string;
  id: string;
  ring: Point[];
}

type ClipChecks = { overlaps: string[]; iou: number; hausdorff: number | null; note?: string } | { error: string };

/** The checks that need boolean operations; a failure of the engine is reported, never thrown. */
function clipChecks(pieces: Solid[], outline: Point[], tol: number): ClipChecks {
  const far = pieces.some((p) => p.ring.some(([x, y]) => Math.abs(x) > MAX_COORDINATE || Math.abs(y) > MAX_COORDINATE));
  if (far) return { error: `overlap and silhouette not checked: a coordinate lies beyond ±${MAX_COORDINATE}` };
  try {
    // One noise frame for the pieces and the target (snap.ts): shared corners and edges become identical.
    const noise = noiseOf([outline, ...pieces.map((p) => p.ring)]);
    const [target, ...rings] = snapRings([outline, ...pieces.map((p) => p.ring)], noise);
    const snapped = pieces.map((p, i) => ({ ...p, ring: rings[i]! }));
    const figure = unionOf(rings.filter((r) => r.length >= 3), noise.grid);
    const overlaps = overlapProblems(snapped, figure, tol, noise.grid);
    // |A ∪ B| = |A| + |B| − |A ∩ B| saves a second clipping pass
    const inter = multiArea(intersectionOf(figure, target!, noise.grid));
    const iou = inter / (multiArea(figure) + area(target!) - inter);
    const boundary = boundaryRings(cleanMultiPolygon(figure, noise), tol);
    // No figure (every piece flat or a point) has no boundary: its distance to the target's is not 0.
    if (boundary.length === 0) return { overlaps, iou, hausdorff: null, note: 'Hausdorff distance not measured: the pieces cover no area' };
    return { overlaps, iou, hausdorff: hausdorffDistance(boundary, [cleanNoise(target!, noise) ?? target!]) };
  } catch (e) {
    return { error: `overlap and silhouette not checked: polygon clipping failed (${(e as Error).message})` };
  }
}

/**
 * Pairs overlapping by more than τ·1 of area (a crack τ wide along a whole side of the unit square).
 * Σ piece areas − area(union) counts every point once per extra piece covering it, so it bounds every
 * pairwise overlap from above: when it is within τ no pair needs clipping.
 */
function overlapProblems(pieces: Solid[], figure: MultiPolygon, tol: number, grid: number): string[] {
  // (shoelace areas are true areas only for simple rings, so a crossed piece always takes the slow path)
  const excess = pieces.reduce((s, p) => s + area(p.ring), 0) - multiArea(figure);
  if (excess <= tol && pieces.every((p) => isSimpleRing(p.ring))) return [];
  const boxes = pieces.map((p) => bbox(p.ring));
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      if (!boxesOverlap(boxes[i]!, boxes[j]!)) continue;
      const shared = multiArea(intersectionOf(pieces[i]!.ring, pieces[j]!.ring, grid));
      if (shared > tol) out.push(`${pieces[i]!.label} and ${pieces[j]!.label} overlap by area ${shared.toFixed(4)}`);
    }
  }
  return out;
}

/** Connected components of the "touches" graph: two pieces touch when they come within τ (a shared corner counts). */
function touchingGroups(pieces: Solid[], tol: number): string[][] {
  const parent = pieces.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      if (find(i) !== find(j) && ringDistance(pieces[i]!.ring, pieces[j]!.ring) <= tol) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, string[]>();
  pieces.forEach((p, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), p.id]));
  return [...groups.values()];
}
