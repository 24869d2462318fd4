/**
 * The seven tangram pieces cut from a square of side 1. With s = √2/4:
 *   large triangle ×2   legs 2s = √2/2, hypotenuse 1      area 1/4
 *   medium triangle     legs 1/2, hypotenuse 2s = √2/2    area 1/8
 *   small triangle ×2   legs s = √2/4, hypotenuse 1/2     area 1/16
 *   square              side s                            area 1/8
 *   parallelogram       sides 1/2 and s, angles 45°/135°  area 1/8
 * The areas sum to 1 (test/scoring/tangram/pieces.test.ts checks it).
 */
export type Point = [number, number];
export type PieceType = 'large_triangle' | 'medium_triangle' | 'small_triangle' | 'square' | 'parallelogram';

const S = Math.SQRT2 / 4;

/** How many of each piece a full set has. */
export const PIECE_COUNTS: Record<PieceType, number> = {
  large_triangle: 2,
  medium_triangle: 1,
  small_triangle: 2,
  square: 1,
  parallelogram: 1,
};
export const PIECE_TYPES = Object.keys(PIECE_COUNTS) as PieceType[];

/**
 * Each piece in its own frame, the frame of the light answer form: first vertex at the origin, first
 * edge along +x, counter-clockwise. Triangles have their right angle at the origin.
 */
export const CANONICAL: Record<PieceType, Point[]> = {
  large_triangle: [[0, 0], [2 * S, 0], [0, 2 * S]],
  medium_triangle: [[0, 0], [0.5, 0], [0, 0.5]],
  small_triangle: [[0, 0], [S, 0], [0, S]],
  square: [[0, 0], [S, 0], [S, S], [0, S]],
  parallelogram: [[0, 0], [0.5, 0], [0.75, 0.25], [0.25, 0.25]],
};

/** The classic dissection of the unit square [0,1]², a known-good assembly. */
export const CLASSIC_SQUARE: { type: PieceType; vertices: Point[] }[] = [
  { type: 'large_triangle', vertices: [[0, 0], [1, 0], [0.5, 0.5]] },
  { type: 'large_triangle', vertices: [[0, 0], [0.5, 0.5], [0, 1]] },
  { type: 'medium_triangle', vertices: [[1, 1], [0.5, 1], [1, 0.5]] },
  { type: 'small_triangle', vertices: [[0.5, 0.5], [0.75, 0.75], [0.25, 0.75]] },
  { type: 'small_triangle', vertices: [[1, 0], [1, 0.5], [0.75, 0.25]] },
  { type: 'square', vertices: [[0.5, 0.5], [0.75, 0.25], [1, 0.5], [0.75, 0.75]] },
  { type: 'parallelogram', vertices: [[0, 1], [0.25, 0.75], [0.75, 0.75], [0.5, 1]] },
];

/**
 * Piece names as models write them: "Large Triangle", "large-triangle", "largeTriangle" all read as
 * `large_triangle`. Anything else is unknown.
 */
export function normalizePieceType(raw: unknown): PieceType | null {
  if (typeof raw !== 'string') return null;
  const key = raw
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return Object.hasOwn(PIECE_COUNTS, key) ? (key as PieceType) : null;
}

/**
 * The light form's placement: reflect (y → −y) if asked, rotate counter-clockwise by `degrees` about
 * the origin, then translate.
 */
export function placePiece(type: PieceType, degrees: number, reflect: boolean, translation: Point): Point[] {
  const a = (degrees * Math.PI) / 180;
  const [c, s] = exactCosSin(a, degrees);
  return CANONICAL[type].map(([x, y0]) => {
    const y = reflect ? -y0 : y0;
    return [c * x - s * y + translation[0], s * x + c * y + translation[1]];
  });
}

/** cos/sin with exact values at multiples of 90°, so a quarter turn leaves no 6e-17 residue. */
function exactCosSin(rad: number, degrees: number): [number, number] {
  const quarter = degrees / 90;
  if (Number.isInteger(quarter)) {
    const k = ((quarter % 4) + 4) % 4;
    return ([[1, 0], [0, 1], [-1, 0], [0, -1]] as [number, number][])[k]!;
  }
  return [Math.cos(rad), Math.sin(rad)];
}
