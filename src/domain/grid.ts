import { z } from 'zod';
import { badInput } from './errors.ts';
import { CAPS, int4, MAX_GRID_SIDE, textProblem } from './limits.ts';

/**
 * Grid puzzle truth (design §2.2, §3): an R×C layout of piece ids and, optionally, each piece's
 * edges (top, right, bottom, left). Ids are strings; JSON numbers are stringified so `7` and `"7"`
 * name the same piece in the truth and in every answer form.
 */
export const EDGE_KINDS = ['tab', 'blank', 'flat'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

/**
 * Characters an id may not contain: the text answer form splits rows on spaces, commas, semicolons
 * and pipes and strips brackets, quotes and tags, so an id holding one could never be written there.
 */
const ID_FORBIDDEN = /[\s,;|[\]{}()"'`<>]/;

/**
 * A number id past 2^53 − 1 is not the number the JSON or YAML parser returned (9007199254740993 reads as
 * 9007199254740992): stringified, the truth (or clue list) would name a piece the file never gave, and two
 * ids could be one. The message for such a number, or null; the same rule as batch row ids (scoring/row-id.ts).
 */
export function inexactIdNumber(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) <= Number.MAX_SAFE_INTEGER) return null;
  return `piece id is a number beyond ${Number.MAX_SAFE_INTEGER}, which a JSON number does not hold exactly (it reads as ${v}); write the id as a string`;
}

const PieceIdSchema = z
  .union([z.string(), z.number().finite()])
  .superRefine((v, ctx) => {
    const p = inexactIdNumber(v);
    if (p) ctx.addIssue({ code: 'custom', message: p });
  })
  .transform((v) => String(v))
  .refine((s) => s.length > 0, 'piece ids must not be empty')
  .refine((s) => s.length <= CAPS.name, `piece ids must be at most ${CAPS.name} characters`)
  .superRefine((s, ctx) => {
    const p = textProblem(s);
    if (p) ctx.addIssue({ code: 'custom', message: `piece id ${p}` });
  })
  .refine((s) => !ID_FORBIDDEN.test(s), {
    message: 'piece ids must not contain spaces, commas, semicolons, pipes, brackets, quotes or < >',
  });

const EdgesSchema = z.tuple([z.enum(EDGE_KINDS), z.enum(EDGE_KINDS), z.enum(EDGE_KINDS), z.enum(EDGE_KINDS)]);

export const GridTruthSchema = z
  .object({
    rows: z.number().int().positive().pipe(int4(1, MAX_GRID_SIDE)),
    cols: z.number().int().positive().pipe(int4(1, MAX_GRID_SIDE)),
    layout: z.array(z.array(PieceIdSchema)),
    edges: z.record(z.string(), EdgesSchema).optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.layout.length !== t.rows) {
      ctx.addIssue({ code: 'custom', path: ['layout'], message: `has ${t.layout.length} rows, expected rows = ${t.rows}` });
      return;
    }
    const seen = new Map<string, string>();
    t.layout.forEach((row, r) => {
      if (row.length !== t.cols) {
        ctx.addIssue({ code: 'custom', path: ['layout', r], message: `has ${row.length} ids, expected cols = ${t.cols}` });
        return;
      }
      row.forEach((id, c) => {
        const first = seen.get(id);
        if (first !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['layout', r, c], message: `duplicate piece id '${id}' (also at ${first})` });
        } else seen.set(id, `layout[${r}][${c}]`);
      });
    });
    if (!t.edges) return;
    for (const id of seen.keys()) {
      if (!(id in t.edges)) ctx.addIssue({ code: 'custom', path: ['edges'], message: `no edges for piece '${id}'` });
    }
    for (const id of Object.keys(t.edges)) {
      if (!seen.has(id)) ctx.addIssue({ code: 'custom', path: ['edges', id], message: `piece '${id}' is not in the layout` });
    }
  });

export type GridTruth = z.infer<typeof GridTruthSchema>;

/** Validates a truth document; the one error names `where` (a file or field) and the first problem. */
export function parseGridTruth(raw: unknown, where: string): GridTruth {
  const r = GridTruthSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  const more = r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more)` : '';
  throw badInput(`${where}: ${path ? `${path}: ` : ''}${issue.message}${more}`);
}

/**
 * Clue-mode ids (`--given G.json`, a JSON array of ids given in place): every id must name a piece
 * of the truth, once, and at least one piece must be left to score.
 */
export function parseGivenIds(raw: unknown, truth: GridTruth, where: string): string[] {
  if (!Array.isArray(raw)) throw badInput(`${where}: expected a JSON array of piece ids`);
  const known = new Set(truth.layout.flat());
  const seen = new Set<string>();
  raw.forEach((v, i) => {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) {
      throw badInput(`${where}: [${i}]: expected a piece id (string or number), got ${JSON.stringify(v)}`);
    }
    const inexact = inexactIdNumber(v);
    if (inexact) throw badInput(`${where}: [${i}]: ${inexact}`);
    const id = String(v);
    if (!known.has(id)) throw badInput(`${where}: unknown piece id '${id}' (not in the truth layout)`);
    if (seen.has(id)) throw badInput(`${where}: piece id '${id}' is listed twice`);
    seen.add(id);
  });
  if (seen.size === known.size) throw badInput(`${where}: every piece is given, so nothing is left to score`);
  return [...seen];
}
