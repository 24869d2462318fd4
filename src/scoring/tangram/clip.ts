import { intersection, union, type Geom } from 'polyclip-ts';
import type { Point } from './pieces.ts';
import { area, perimeter } from './polygon.ts';
import { snapToGrid } from './snap.ts';

/**
 * Boolean operations through polyclip-ts (exact arithmetic underneath, so edges shared by two pieces
 * merge instead of leaving cracks). Results are multipolygons: polygons of [outer, ...holes] rings.
 */
export type MultiPolygon = Point[][][];

/** polyclip-ts loops forever on coordinates that overflow to ±Infinity; no tangram comes near this. */
export const MAX_COORDINATE = 1e6;

/**
 * Coordinates go in rounded to a power-of-two grid: polyclip-ts fails on subnormal numbers such as
 * 5e-324 that a rotation can leave behind. verify.ts passes the grid of its noise frame (snap.ts), where
 * the rings have already been merged and T-junctions split; 2⁻⁴⁰ (about 1e-12) is the default.
 */
const DEFAULT_GRID = 2 ** -40;
const closed = (ring: Point[], grid: number): Point[] => [...ring.map((p) => snapToGrid(p, grid)), snapToGrid(ring[0]!, grid)];
const geom = (ring: Point[], grid: number): Geom => [closed(ring, grid)];

/** Rings come back closed; drop the repeated last vertex. */
const open = (mp: [number, number][][][]): MultiPolygon => mp.map((poly) => poly.map((ring) => ring.slice(0, -1) as Point[]));

export const unionOf = (rings: Point[][], grid = DEFAULT_GRID): MultiPolygon =>
  rings.length === 0 ? [] : open(union(geom(rings[0]!, grid), ...rings.slice(1).map((r) => geom(r, grid))));

export const intersectionOf = (a: MultiPolygon | Point[], b: MultiPolygon | Point[], grid = DEFAULT_GRID): MultiPolygon =>
  open(intersection(asGeom(a, grid), asGeom(b, grid)));

function asGeom(x: MultiPolygon | Point[], grid: number): Geom {
  if (x.length === 0) return [];
  return typeof (x as Point[])[0]![0] === 'number' ? geom(x as Point[], grid) : (x as MultiPolygon).map((poly) => poly.map((r) => closed(r, grid)));
}

export function multiArea(mp: MultiPolygon): number {
  let s = 0;
  for (const [outer, ...holes] of mp) s += area(outer!) - holes.reduce((h, r) => h + area(r), 0);
  return s;
}

/**
 * Every boundary ring, leaving out slivers thinner than `width` (mean thickness 2·area/perimeter): the
 * hairline cracks or crumbs that rounded coordinates leave between pieces are not part of the figure's
 * outline, while a real hole (a missing piece) is hundreds of times thicker.
 */
export function boundaryRings(mp: MultiPolygon, width: number): Point[][] {
  const thick = (r: Point[]) => r.length >= 3 && (2 * area(r)) / perimeter(r) >= width;
  return mp.flatMap(([outer, ...holes]) => (thick(outer!) ? [outer!, ...holes.filter(thick)] : []));
}

export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}
export function bbox(ring: Point[]): Box {
  const xs = ring.map((p) => p[0]);
  const ys = ring.map((p) => p[1]);
  return { minX: Math.min(...xs), minY: Math.min(...ys), maxX: Math.max(...xs), maxY: Math.max(...ys) };
}
export const boxesOverlap = (a: Box, b: Box): boolean => a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY;
