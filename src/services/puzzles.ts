import { basename } from 'node:path';
import { asc, count, eq, inArray, type SQL, and } from 'drizzle-orm';
import { z } from 'zod';
import { Fields } from '../domain/fields.ts';
import { CAPS } from '../domain/limits.ts';
import { GridTruthSchema, inexactIdNumber, type GridTruth } from '../domain/grid.ts';
import { AssayError, badInput, notFound } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { puzzles, rubrics } from '../db/schema.ts';
import { isJsonl, locatedError, parseLocated, parseValues, where, type ImportFile, type Located } from './import-parse.ts';

/**
 * Puzzles: a grid truth (design §3 T.json) plus what reports slice and join on: the picture, a size
 * bucket, and the rubric of the picture (so a model's description and its assembly of the same puzzle
 * meet for describe-then-solve). A puzzle's layout is immutable once stored: scores depend on it; its
 * other fields change only with `replace`.
 */

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const PuzzleMetaSchema = z.object({
  id: Fields.puzzleId.optional(),
  picture: Fields.path.optional(),
  sizeBucket: Fields.sizeBucket.optional(),
  rubric: Fields.ref.optional(),
});

/** Size buckets by piece count, for slicing: boundaries halfway (geometrically) between the buckets. */
export function sizeBucketFor(pieces: number): string {
  if (pieces < 35) return `~${pieces}`;
  if (pieces < 75) return '~50';
  if (pieces < 150) return '~100';
  if (pieces < 300) return '~200';
  if (pieces < 700) return '~500';
  return '~1000';
}

export interface PuzzleInput {
  slug: string;
  truth: GridTruth;
  picture: string | null;
  sizeBucket: string;
  rubric: string | null;
  where: string;
}

/**
 * A YAML id written 007 (or 1e3, 0x1F, +5, 5.0) is the number 7 (1000, 31, 5, 5) to the YAML parser, and
 * stringified it would name a piece the file never wrote: an answer giving 007 would score it unknown.
 * Refused, as JSON truths refuse a number they cannot hold exactly: numbers are ids only as String(n).
 */
function refuseNumberTextIds(loc: Located, layout: unknown): void {
  if (!loc.numberText || !Array.isArray(layout)) return;
  layout.forEach((row, r) => {
    if (!Array.isArray(row)) return;
    row.forEach((v, c) => {
      // Past 2^53 the truth schema's own message (inexactIdNumber) says more.
      const text = typeof v === 'number' && !inexactIdNumber(v) ? loc.numberText!(['layout', r, c]) : undefined;
      if (text !== undefined) {
        throw locatedError(loc, ['layout', r, c], `piece id ${text} is read by YAML as the number ${v} ('${String(v)}'), not as written; quote it ("${text}")`);
      }
    });
  });
}

export function parsePuzzleFiles(files: ImportFile[]): PuzzleInput[] {
  const out: PuzzleInput[] = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    for (const loc of parseValues(f)) {
      if (!loc.value || typeof loc.value !== 'object' || Array.isArray(loc.value)) {
        throw locatedError(loc, [], 'expected an object {id, rows, cols, layout, edges?, picture?, sizeBucket?, rubric?}');
      }
      const { id, picture, sizeBucket, rubric, ...truthRaw } = loc.value as Record<string, unknown>;
      const meta = parseLocated(PuzzleMetaSchema, { ...loc, value: { id, picture, sizeBucket, rubric } });
      refuseNumberTextIds(loc, truthRaw.layout);
      const truth = parseLocated(GridTruthSchema, { ...loc, value: truthRaw });
      const slug = meta.id ?? (isJsonl(f.path) ? undefined : basename(f.path).replace(/\.(ya?ml|json)$/i, ''));
      if (!slug) throw locatedError(loc, ['id'], 'required in JSONL puzzle files');
      if (!SLUG.test(slug) || slug.length > CAPS.name) throw locatedError(loc, ['id'], `'${slug}' is not a valid puzzle id (letters, digits, . _ -; at most ${CAPS.name})`);
      const here = where(loc.file, loc.line);
      const prev = seen.get(slug);
      if (prev) throw badInput(`${here}: id: puzzle '${slug}' also defined at ${prev}`);
      seen.set(slug, here);
      out.push({
        slug,
        truth,
        picture: meta.picture ?? null,
        sizeBucket: meta.sizeBucket ?? sizeBucketFor(truth.rows * truth.cols),
        rubric: meta.rubric ?? null,
        where: here,
      });
    }
  }
  return out;
}

export interface PuzzleImportResult {
  created: number;
  updated: number;
  unchanged: number;
}

/** Edges keyed in sorted order: jsonb hands objects back shortest key first, not in the order given. */
const edgesText = (edges: unknown): string =>
  edges === null || edges === undefined ? 'null' : JSON.stringify(Object.entries(edges as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));

const sameTruth = (a: { rows: number; cols: number; layout: unknown; edges: unknown }, t: GridTruth) =>
  a.rows === t.rows && a.cols === t.cols && JSON.stringify(a.layout) === JSON.stringify(t.layout) && edgesText(a.edges) === edgesText(t.edges);

const shown = (v: string | null) => (v === null ? 'none' : `'${v}'`);

/**
 * A puzzle's picture, size bucket and rubric may change (its layout may not), but never unasked: the
 * rubric link decides which descriptions meet which assemblies. Without `replace` an import that would
 * change them is refused as a conflict naming how many and a few examples.
 */
export async function storePuzzles(tx: Queryable, list: PuzzleInput[], opts: { replace?: boolean } = {}): Promise<PuzzleImportResult> {
  const result: PuzzleImportResult = { created: 0, updated: 0, unchanged: 0 };
  const changes: string[] = [];
  const slugs = [...new Set(list.map((p) => p.rubric).filter((s): s is string => s !== null))];
  const rubricRows = slugs.length ? await tx.select({ id: rubrics.id, slug: rubrics.slug }).from(rubrics).where(inArray(rubrics.slug, slugs)) : [];
  const rubricIds = new Map(rubricRows.map((r) => [r.slug, r.id]));
  for (const p of list) {
    const rubricId = p.rubric === null ? null : rubricIds.get(p.rubric);
    if (rubricId === undefined) throw badInput(`${p.where}: rubric: unknown rubric '${p.rubric}' (import it first)`);
    const values = {
      slug: p.slug,
      rows: p.truth.rows,
      cols: p.truth.cols,
      layout: p.truth.layout,
      edges: p.truth.edges ?? null,
      picturePath: p.picture,
      sizeBucket: p.sizeBucket,
      rubricId,
    };
    const [existing] = await tx.select().from(puzzles).where(eq(puzzles.slug, p.slug));
    if (!existing) {
      await tx.insert(puzzles).values(values);
      result.created++;
    } else if (!sameTruth(existing, p.truth)) {
      throw badInput(`${p.where}: layout: puzzle '${p.slug}' already exists with a different layout or edges (stored scores depend on it; use a new id)`);
    } else if (existing.picturePath === p.picture && existing.sizeBucket === p.sizeBucket && existing.rubricId === rubricId) {
      result.unchanged++;
    } else {
      const oldRubric = existing.rubricId === null ? null : (await tx.select({ slug: rubrics.slug }).from(rubrics).where(eq(rubrics.id, existing.rubricId)))[0]!.slug;
      const diff = [
        existing.picturePath !== p.picture && `picture ${shown(existing.picturePath)} → ${shown(p.picture)}`,
        existing.sizeBucket !== p.sizeBucket && `sizeBucket ${shown(existing.sizeBucket)} → ${shown(p.sizeBucket)}`,
        existing.rubricId !== rubricId && `rubric ${shown(oldRubric)} → ${shown(p.rubric)}`,
      ].filter(Boolean);
      if (changes.length < 3) changes.push(`${p.where} puzzle '${p.slug}': ${diff.join(', ')}`);
      await tx.update(puzzles).set({ picturePath: p.picture, sizeBucket: p.sizeBucket, rubricId }).where(eq(puzzles.id, existing.id));
      result.updated++;
    }
  }
  if (result.updated > 0 && !opts.replace) {
    const more = result.updated > changes.length ? `; and ${result.updated - changes.length} more` : '';
    throw new AssayError(
      'conflict',
      `would change ${result.updated} stored puzzle${result.updated === 1 ? '' : 's'} (${changes.join('; ')}${more}); nothing written — ` +
        'to change them, import again with --replace (API: ?replace=true)',
    );
  }
  return result;
}

/** All or nothing, like every import. */
export async function importPuzzles(database: Database, files: ImportFile[], opts: { replace?: boolean } = {}): Promise<PuzzleImportResult> {
  const list = parsePuzzleFiles(files);
  if (list.length === 0) throw badInput('no puzzle files to import (.json, .yaml, .yml or .jsonl)');
  return database.db.transaction((tx) => storePuzzles(tx, list, opts));
}

export interface PuzzleView {
  id: string;
  rows: number;
  cols: number;
  pieces: number;
  layout: string[][];
  edges: Record<string, string[]> | null;
  picture: string | null;
  sizeBucket: string | null;
  rubric: string | null;
  createdAt: Date;
}

const puzzleColumns = { p: puzzles, rubricSlug: rubrics.slug };

function toView(r: { p: typeof puzzles.$inferSelect; rubricSlug: string | null }): PuzzleView {
  return {
    id: r.p.slug,
    rows: r.p.rows,
    cols: r.p.cols,
    pieces: r.p.rows * r.p.cols,
    layout: r.p.layout,
    edges: r.p.edges ?? null,
    picture: r.p.picturePath,
    sizeBucket: r.p.sizeBucket,
    rubric: r.rubricSlug,
    createdAt: r.p.createdAt,
  };
}

export async function listPuzzles(
  database: Database,
  opts: { limit?: number; offset?: number; sizeBucket?: string; rubric?: string } = {},
): Promise<{ total: number; puzzles: PuzzleView[] }> {
  const db = database.db;
  const conds: SQL[] = [];
  if (opts.sizeBucket) conds.push(eq(puzzles.sizeBucket, opts.sizeBucket));
  if (opts.rubric) conds.push(eq(rubrics.slug, opts.rubric));
  const cond = conds.length ? and(...conds) : undefined;
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(puzzles).leftJoin(rubrics, eq(rubrics.id, puzzles.rubricId)).where(cond);
  const rows = await db
    .select(puzzleColumns)
    .from(puzzles)
    .leftJoin(rubrics, eq(rubrics.id, puzzles.rubricId))
    .where(cond)
    .orderBy(asc(puzzles.slug))
    .limit(opts.limit ?? 50)
    .offset(opts.offset ?? 0);
  return { total, puzzles: rows.map(toView) };
}

export async function getPuzzle(database: Database | { db: Queryable }, slug: string): Promise<PuzzleView> {
  const [row] = await database.db.select(puzzleColumns).from(puzzles).leftJoin(rubrics, eq(rubrics.id, puzzles.rubricId)).where(eq(puzzles.slug, slug));
  if (!row) throw notFound(`puzzle '${slug}' not found`);
  return toView(row);
}

/** The truth document of a stored puzzle, as scoring takes it. */
export function puzzleTruth(p: Pick<PuzzleView, 'rows' | 'cols' | 'layout' | 'edges'>): GridTruth {
  return { rows: p.rows, cols: p.cols, layout: p.layout, ...(p.edges ? { edges: p.edges as GridTruth['edges'] } : {}) };
}
