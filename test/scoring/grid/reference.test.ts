import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGridTruth, type GridTruth } from '../../../src/domain/grid.ts';
import { scoreGrid, gridBaseline, shapeCompatibilityExact } from '../../../src/scoring/grid/index.ts';

/**
 * An independent reference of design §2.2, written from the definitions (no code shared with
 * src/scoring/grid), compared with scoreGrid over seeded random truths and answers that misplace,
 * leave out, repeat and invent pieces, in the 2-D array, text and mapping forms, with and without clues.
 */

type Cell = [number, number];
const SIDES = ['tab', 'blank'] as const;

interface Case {
  truth: GridTruth;
  /** The answer's R×C tokens: an id of the truth, an unknown id, or null (blank). */
  tokens: (string | null)[][];
  given: string[];
}

const caseArb = fc
  .record({ rows: fc.integer({ min: 1, max: 6 }), cols: fc.integer({ min: 1, max: 6 }), edges: fc.boolean() })
  .chain(({ rows, cols, edges }) => {
    const n = rows * cols;
    return fc.record({
      rows: fc.constant(rows),
      cols: fc.constant(cols),
      perm: fc.shuffledSubarray(Array.from({ length: n }, (_, k) => k), { minLength: n, maxLength: n }),
      polarity: fc.array(fc.boolean(), { minLength: 2 * n, maxLength: 2 * n }),
      edges: fc.constant(edges),
      // per cell: 0..n-1 a truth piece (so repeats happen), n an unknown id, n+1 blank
      cells: fc.array(fc.oneof(fc.integer({ min: 0, max: n - 1 }), fc.constant(n), fc.constant(n + 1)), { minLength: n, maxLength: n }),
      givenMask: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      clue: fc.boolean(),
    });
  })
  .map(({ rows, cols, perm, polarity, edges, cells, givenMask, clue }): Case => {
    const n = rows * cols;
    const ids = perm.map((k) => `q${k}`);
    const layout = Array.from({ length: rows }, (_, r) => ids.slice(r * cols, (r + 1) * cols));
    let truthEdges: Record<string, string[]> | undefined;
    if (edges) {
      const side = ids.map(() => ['flat', 'flat', 'flat', 'flat']);
      for (let k = 0; k < n; k++) {
        const [x, y] = polarity[2 * k] ? SIDES : [SIDES[1], SIDES[0]];
        if (k % cols < cols - 1) [side[k]![1], side[k + 1]![3]] = [x, y];
        const [u, v] = polarity[2 * k + 1] ? SIDES : [SIDES[1], SIDES[0]];
        if (k + cols < n) [side[k]![2], side[k + cols]![0]] = [u, v];
      }
      truthEdges = Object.fromEntries(ids.map((id, k) => [id, side[k]!]));
    }
    const truth = parseGridTruth({ rows, cols, layout, ...(truthEdges ? { edges: truthEdges } : {}) }, 'ref');
    const tokens = Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, c) => {
        const v = cells[r * cols + c]!;
        return v < n ? ids[v]! : v === n ? `zz${r}_${c}` : null;
      }),
    );
    let given = clue ? ids.filter((_, k) => givenMask[k]) : [];
    if (given.length === n) given = given.slice(1);
    return { truth, tokens, given };
  });

/** pos(x) from R×C tokens: unknown → blank, a repeated id keeps its first (row-major) cell. */
function positionsFromTokens(t: GridTruth, tokens: (string | null)[][]): Map<string, Cell> {
  const known = new Set(t.layout.flat());
  const pos = new Map<string, Cell>();
  tokens.forEach((row, r) =>
    row.forEach((id, c) => {
      if (id !== null && known.has(id) && !pos.has(id)) pos.set(id, [r, c]);
    }),
  );
  return pos;
}

/** The reference metrics, straight from design §2.2 and docs/grid-scoring.md. */
function reference(t: GridTruth, pos: Map<string, Cell>, given: string[]) {
  const R = t.rows;
  const C = t.cols;
  const n = R * C;
  const L = t.layout;
  const isGiven = new Set(given);
  const classOf = (r: number, c: number) => {
    const br = r === 0 || r === R - 1;
    const bc = c === 0 || c === C - 1;
    return br && bc ? 'corner' : br || bc ? 'edge' : 'interior';
  };
  const hits: Record<string, [number, number]> = { corner: [0, 0], edge: [0, 0], interior: [0, 0] };
  let home = 0;
  let scored = 0;
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      const id = L[r]![c]!;
      if (isGiven.has(id)) continue;
      scored++;
      const p = pos.get(id);
      const ok = p !== undefined && p[0] === r && p[1] === c;
      if (ok) home++;
      const h = hits[classOf(r, c)]!;
      h[1]++;
      if (ok) h[0]++;
    }
  const pairs: Array<[string, string, Cell]> = [];
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      if (c + 1 < C) pairs.push([L[r]![c]!, L[r]![c + 1]!, [0, 1]]);
      if (r + 1 < R) pairs.push([L[r]![c]!, L[r + 1]![c]!, [1, 0]]);
    }
  // E by brute force over ordered pairs of distinct cells (not the closed form)
  let sumD = 0;
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++)
      if (a !== b) sumD += Math.abs(Math.floor(a / C) - Math.floor(b / C)) + Math.abs((a % C) - (b % C));
  const E = n > 1 ? sumD / (n * (n - 1)) : null;
  let nb = 0;
  let adj = 0;
  let dist = 0;
  for (const [a, b, [dr, dc]] of pairs) {
    const pa = pos.get(a);
    const pb = pos.get(b);
    if (!pa || !pb) {
      dist += E!;
      continue;
    }
    const d = Math.abs(pa[0] - pb[0]) + Math.abs(pa[1] - pb[1]);
    dist += d;
    if (d === 1) adj++;
    if (pb[0] - pa[0] === dr && pb[1] - pa[1] === dc) nb++;
  }
  const m = pairs.length;
  let shape: number | null = null;
  if (t.edges && n > 1) {
    const at = new Map<string, string>();
    for (const [id, [r, c]] of pos) at.set(`${r},${c}`, id);
    let fit = 0;
    let total = 0;
    const fits = (x: string, y: string) => (x === 'tab' && y === 'blank') || (x === 'blank' && y === 'tab');
    for (let r = 0; r < R; r++)
      for (let c = 0; c < C; c++) {
        const a = at.get(`${r},${c}`);
        if (!a) continue;
        const right = at.get(`${r},${c + 1}`);
        if (c + 1 < C && right) {
          total++;
          if (fits(t.edges[a]![1]!, t.edges[right]![3]!)) fit++;
        }
        const below = at.get(`${r + 1},${c}`);
        if (r + 1 < R && below) {
          total++;
          if (fits(t.edges[a]![2]!, t.edges[below]![0]!)) fit++;
        }
      }
    shape = total === 0 ? 0 : fit / total;
  }
  const share = (k: string) => (hits[k]![1] === 0 ? null : hits[k]![0] / hits[k]![1]);
  return {
    direct: home / scored,
    exactMatch: home === scored ? 1 : 0,
    neighbour: m === 0 ? null : nb / m,
    adjacency: m === 0 ? null : adj / m,
    proximity: m === 0 || E === null || E <= 1 ? null : (E - dist / m) / (E - 1),
    shapeCompatibility: shape,
    byPosition: { corner: share('corner'), edge: share('edge'), interior: share('interior') },
  };
}

function expectClose(actual: ReturnType<typeof scoreGrid>, expected: ReturnType<typeof reference>, label: string) {
  const { status: _s, problems: _p, byPosition, ...metrics } = actual;
  const { byPosition: eb, ...em } = expected;
  for (const [k, v] of Object.entries(em)) {
    const got = (metrics as Record<string, number | null>)[k];
    if (v === null) expect(got, `${label} ${k}`).toBeNull();
    else expect(got, `${label} ${k}`).toBeCloseTo(v, 10);
  }
  for (const [k, v] of Object.entries(eb)) {
    const got = (byPosition as Record<string, number | null>)[k];
    if (v === null) expect(got, `${label} byPosition.${k}`).toBeNull();
    else expect(got, `${label} byPosition.${k}`).toBeCloseTo(v, 10);
  }
}

describe('grid metrics against an independent reference (design §2.2)', () => {
  it('2-D array and text forms: misplaced, missing, repeated and unknown ids, clue mode', () => {
    fc.assert(
      fc.property(caseArb, ({ truth, tokens, given }) => {
        const want = reference(truth, positionsFromTokens(truth, tokens), given);
        const json = scoreGrid(truth, JSON.stringify(tokens), { given });
        expectClose(json, want, 'json');
        // text: a blank is "_" (a placeholder)
        const text = tokens.map((row) => row.map((id) => id ?? '_').join(' ')).join('\n');
        // docs/formats.md: a text line is a grid row when at least half its tokens are known ids or blanks
        // (and one is an id, or all are blanks); otherwise it is prose and the answer has no R×C block.
        const known = new Set(truth.layout.flat());
        const rowLike = (row: (string | null)[]) => {
          const ids = row.filter((id) => id !== null && known.has(id)).length;
          const blanks = row.filter((id) => id === null).length;
          return blanks === row.length || (ids >= 1 && 2 * (ids + blanks) >= row.length);
        };
        const fromText = scoreGrid(truth, text, { given });
        if (tokens.every(rowLike)) {
          expectClose(fromText, want, 'text');
          expect(fromText.status).toBe(json.status);
        } else expect(fromText.status).toBe('invalid');
        const clean = tokens.flat().every((id, k) => id !== null) && positionsFromTokens(truth, tokens).size === truth.rows * truth.cols;
        expect(json.status).toBe(clean ? 'valid' : 'repaired');
      }),
      { numRuns: 600, seed: 20261203 },
    );
  });

  it('mapping form: a cell claimed twice places neither piece, an out-of-grid cell is not placed', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.array(fc.tuple(fc.integer({ min: -1, max: 6 }), fc.integer({ min: -1, max: 6 })), { minLength: 36, maxLength: 36 }),
        fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }),
        fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }),
        ({ truth, given }, cells, keep, twice) => {
          const ids = truth.layout.flat();
          const map: Record<string, Cell> = {};
          // an id given a second time as " id" (the same id once trimmed) at the next cell's coordinates
          ids.forEach((id, k) => {
            if (keep[k]) map[id] = cells[k]!;
            if (twice[k]) map[` ${id}`] = cells[(k + 1) % 36]!;
          });
          map.unknownPiece = [0, 0];
          const inGrid = (c: Cell) => c[0] >= 0 && c[0] < truth.rows && c[1] >= 0 && c[1] < truth.cols;
          // design §2.2: an id given twice keeps its first; two ids on one cell place neither
          const first = new Map<string, Cell>();
          for (const [key, c] of Object.entries(map)) if (ids.includes(key.trim()) && !first.has(key.trim())) first.set(key.trim(), c);
          const claims = new Map<string, number>();
          for (const c of first.values()) if (inGrid(c)) claims.set(`${c}`, (claims.get(`${c}`) ?? 0) + 1);
          const pos = new Map<string, Cell>();
          for (const [id, c] of first) if (inGrid(c) && claims.get(`${c}`) === 1) pos.set(id, c);
          expectClose(scoreGrid(truth, JSON.stringify(map), { given }), reference(truth, pos, given), 'mapping');
        },
      ),
      { numRuns: 400, seed: 1203 },
    );
  });

  it('random baselines: closed forms equal the exact mean over all permutations (n ≤ 7) and the shape formula', () => {
    const perms = (xs: number[]): number[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const [R, C] of [
      [1, 2], [2, 1], [1, 3], [3, 1], [2, 2], [1, 5], [2, 3], [3, 2], [1, 7],
    ] as const) {
      const n = R * C;
      const ids = Array.from({ length: n }, (_, k) => `c${k}`);
      const truth = parseGridTruth({ rows: R, cols: C, layout: Array.from({ length: R }, (_, r) => ids.slice(r * C, (r + 1) * C)) }, 'b');
      const sums = { direct: 0, neighbour: 0, adjacency: 0, proximity: 0 };
      const all = perms(ids.map((_, k) => k));
      for (const p of all) {
        const pos = new Map<string, Cell>(p.map((k, cell) => [ids[k]!, [Math.floor(cell / C), cell % C]]));
        const ref = reference(truth, pos, []);
        for (const k of ['direct', 'neighbour', 'adjacency', 'proximity'] as const) sums[k] += ref[k] ?? NaN;
      }
      const b = gridBaseline(R, C);
      for (const k of ['direct', 'neighbour', 'adjacency'] as const) expect(b[k], `${R}×${C} ${k}`).toBeCloseTo(sums[k] / all.length, 12);
      if (b.proximity === null) expect(Number.isNaN(sums.proximity)).toBe(true);
      else expect(sums.proximity / all.length).toBeCloseTo(0, 12);
    }
  });

  it('shapeCompatibility baseline: the exact formula equals the mean over every jigsaw and permutation (2×2, 2×3)', () => {
    const perms = (xs: number[]): number[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const [R, C] of [
      [2, 2], [2, 3], [1, 4], [3, 2],
    ] as const) {
      const n = R * C;
      const m = R * (C - 1) + C * (R - 1);
      const ids = Array.from({ length: n }, (_, k) => `c${k}`);
      const layout = Array.from({ length: R }, (_, r) => ids.slice(r * C, (r + 1) * C));
      const all = perms(ids.map((_, k) => k));
      let sum = 0;
      let count = 0;
      for (let bits = 0; bits < 2 ** m; bits++) {
        const side = ids.map(() => ['flat', 'flat', 'flat', 'flat']);
        let e = 0;
        for (let k = 0; k < n; k++) {
          if (k % C < C - 1) [side[k]![1], side[k + 1]![3]] = (bits >> e++) & 1 ? ['tab', 'blank'] : ['blank', 'tab'];
          if (k + C < n) [side[k]![2], side[k + C]![0]] = (bits >> e++) & 1 ? ['tab', 'blank'] : ['blank', 'tab'];
        }
        const truth = parseGridTruth({ rows: R, cols: C, layout, edges: Object.fromEntries(ids.map((id, k) => [id, side[k]!])) }, 's');
        for (const p of all) {
          const pos = new Map<string, Cell>(p.map((k, cell) => [ids[k]!, [Math.floor(cell / C), cell % C]]));
          sum += reference(truth, pos, []).shapeCompatibility!;
          count++;
        }
      }
      expect(shapeCompatibilityExact(R, C), `${R}×${C}`).toBeCloseTo(sum / count, 12);
      expect(gridBaseline(R, C, { shapes: true, trials: 20000, seed: 7 }).shapeCompatibility!).toBeCloseTo(sum / count, 2);
    }
  });
});
