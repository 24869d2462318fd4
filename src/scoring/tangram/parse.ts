import { badInput } from '../../domain/errors.ts';
import { MAX_COORDINATE } from './clip.ts';
import { coordinateValue } from './expression.ts';
import { extractJson } from './extract.ts';
import { normalizePieceType, PIECE_COUNTS, PIECE_TYPES, placePiece, type PieceType, type Point } from './pieces.ts';
import { area, cleanRing, isSimpleRing } from './polygon.ts';

/**
 * Status of reading an answer: `ok` (valid JSON as written), `repaired` (read after mending: LaTeX
 * escapes, bare expressions quoted, jsonrepair), `syntax_error` (nothing usable, or not a full set of
 * seven known pieces with readable coordinates).
 */
export type ParseStatus = 'ok' | 'repaired' | 'syntax_error';

export interface PlacedPiece {
  id: string;
  type: PieceType;
  vertices: Point[];
}

export interface ParsedAnswer {
  status: ParseStatus;
  pieces: PlacedPiece[] | null;
  problems: string[];
}

type Read<T> = { value: T } | { error: string };

function readPoint(v: unknown, what: string): Read<Point> {
  if (!Array.isArray(v) || v.length !== 2) return { error: `${what}: expected [x, y], got ${JSON.stringify(v)}` };
  const x = coordinateValue(v[0]);
  const y = coordinateValue(v[1]);
  if ('error' in x) return { error: `${what}: x ${x.error}` };
  if ('error' in y) return { error: `${what}: y ${y.error}` };
  return { value: [x.value, y.value] };
}

/** The full form (`vertices`) or the light form (`rotation` degrees, `reflect`, `translation`). */
function readPlacement(p: Record<string, unknown>, type: PieceType, label: string): Read<Point[]> {
  if (p.vertices !== undefined) {
    if (!Array.isArray(p.vertices) || p.vertices.length < 3) return { error: `${label}: "vertices" must list at least 3 [x, y] points` };
    const pts: Point[] = [];
    for (let i = 0; i < p.vertices.length; i++) {
      const r = readPoint(p.vertices[i], `${label}: vertex ${i + 1}`);
      if ('error' in r) return r;
      pts.push(r.value);
    }
    return { value: pts };
  }
  if (p.rotation === undefined && p.translation === undefined) {
    return { error: `${label}: needs "vertices", or "rotation"/"translation" (light form)` };
  }
  const rot = p.rotation === undefined ? { value: 0 } : coordinateValue(p.rotation);
  if ('error' in rot) return { error: `${label}: rotation ${rot.error}` };
  const t = p.translation === undefined ? { value: [0, 0] as Point } : readPoint(p.translation, `${label}: translation`);
  if ('error' in t) return t;
  if (p.reflect !== undefined && typeof p.reflect !== 'boolean') return { error: `${label}: "reflect" must be true or false` };
  return { value: placePiece(type, rot.value, p.reflect === true, t.value) };
}

/** Reads a model's answer text. Never throws: every defect is a problem in the result. */
export function parseTangramAnswer(text: string): ParsedAnswer {
  const ex = extractJson(text, 'pieces');
  if (!ex.ok) return { status: 'syntax_error', pieces: null, problems: [ex.error] };
  const problems = [...ex.repairs];
  const fail = (msg: string): ParsedAnswer => ({ status: 'syntax_error', pieces: null, problems: [...problems, msg] });
  const list = (ex.value as { pieces?: unknown } | null)?.pieces;
  if (!Array.isArray(list)) return fail('"pieces" is not an array');
  const errors: string[] = [];
  if (list.length !== 7) errors.push(`expected 7 pieces, found ${list.length}`);
  const pieces: PlacedPiece[] = [];
  list.forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push(`piece ${i + 1}: not an object`);
      return;
    }
    const p = raw as Record<string, unknown>;
    const id = typeof p.id === 'string' || typeof p.id === 'number' ? String(p.id) : `#${i + 1}`;
    const type = normalizePieceType(p.type);
    if (!type) {
      errors.push(`piece ${id}: unknown type ${JSON.stringify(p.type) ?? 'undefined'} (known: ${PIECE_TYPES.join(', ')})`);
      return;
    }
    const placed = readPlacement(p, type, `piece ${id}`);
    if ('error' in placed) errors.push(placed.error);
    else pieces.push({ id, type, vertices: placed.value });
  });
  if (errors.length === 0) {
    for (const type of PIECE_TYPES) {
      const found = pieces.filter((p) => p.type === type).length;
      if (found !== PIECE_COUNTS[type]) errors.push(`expected ${PIECE_COUNTS[type]} ${type}, found ${found}`);
    }
  }
  if (errors.length > 0) return { status: 'syntax_error', pieces: null, problems: [...problems, ...errors] };
  return { status: problems.length > 0 ? 'repaired' : 'ok', pieces, problems };
}

export interface TangramTarget {
  outline: Point[];
}

/** A target silhouette `{"outline": [[x, y], …]}`: one simple polygon. Bad targets are bad input. */
export function parseTangramTarget(value: unknown, where = 'target'): TangramTarget {
  const outline = (value as { outline?: unknown } | null)?.outline;
  if (typeof value !== 'object' || value === null || !Array.isArray(outline)) {
    throw badInput(`${where}: expected {"outline": [[x, y], ...]}`);
  }
  const pts: Point[] = [];
  for (let i = 0; i < outline.length; i++) {
    const r = readPoint(outline[i], `${where}: outline vertex ${i + 1}`);
    if ('error' in r) throw badInput(r.error);
    if (r.value.some((c) => Math.abs(c) > MAX_COORDINATE)) throw badInput(`${where}: outline vertex ${i + 1} lies beyond ±${MAX_COORDINATE}`);
    pts.push(r.value);
  }
  const ring = cleanRing(pts, 1e-12);
  if (ring.length < 3 || area(ring) === 0) throw badInput(`${where}: outline needs at least 3 corners enclosing an area`);
  if (!isSimpleRing(ring)) throw badInput(`${where}: outline crosses itself (it must be one simple polygon)`);
  return { outline: ring };
}
