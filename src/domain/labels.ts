import { z } from 'zod';
import { badInput } from './errors.ts';
import { Fields } from './fields.ts';
import { assertStorableJson, assertUniqueKeys } from './json-check.ts';
import { readDecimal } from './limit-values.ts';
import type { LabelKind } from './label-kinds.ts';
import { ITEM_VERDICTS, VERDICT_POINTS, type ItemVerdict } from './verdicts.ts';

/**
 * Label sets for judge calibration (design §3 `assay calibrate`, calibration/*.jsonl). One row is one
 * rater's label of one unit: an answer, or one rubric item of an answer. The zod schema is the source of
 * truth; calibration/schema.json is generated from it (test/analysis asserts they agree).
 */
const Id = z.union([Fields.answerExternalId, z.number()]);

export const LabelRowSchema = z
  .object({
    answer: Id.describe('the graded answer (one model output)'),
    rubric: Fields.ref
      .optional()
      .describe("the rubric of the answer (its id): per-item figures are per (rubric, item), so rubrics sharing an item id are told apart; absent: items are told apart by id alone"),
    item: Id.optional().describe('rubric item id; absent when the label is for the whole answer'),
    model: Fields.model.optional().describe('the model that wrote the answer'),
    rater: Fields.annotator.describe('who labelled: a person or a judge id'),
    kind: z.enum(['human', 'judge']),
    label: z
      .union([Fields.label, z.number(), z.boolean()])
      .describe('verdict scale: correct|partial|incorrect|missing; binary: true|false, pass|fail, yes|no, 1|0; numeric: a number'),
    note: Fields.note.optional().describe('free text, ignored by the analysis'),
  })
  .strict();

export type LabelRowInput = z.infer<typeof LabelRowSchema>;

/** A parsed row: ids as strings, plus the source line for error messages. */
export interface LabelRow {
  answer: string;
  /** The answer's rubric (id): an item is the item of a rubric, and rubrics share item ids. */
  rubric?: string;
  item?: string;
  model?: string;
  rater: string;
  kind: LabelKind;
  label: string | number | boolean;
  line?: number;
}

export const LABEL_SCALES = ['verdict', 'binary', 'numeric'] as const;
export type LabelScale = (typeof LABEL_SCALES)[number];

/** A label after normalisation: `category` for kappa and confusion, `value` for means and correlations. */
export interface NormalLabel {
  category: string | number;
  value: number;
}

// A Map, not an object literal: a label such as "constructor" must not find Object.prototype members.
const BINARY: ReadonlyMap<string, boolean> = new Map([
  ['true', true], ['pass', true], ['yes', true], ['1', true],
  ['false', false], ['fail', false], ['no', false], ['0', false],
]);

interface ScaleSpec {
  /** What the scale accepts, for error messages. */
  accepts: string;
  /** Categories in order (none for numeric). */
  categories: readonly (string | number)[] | null;
  normalise(label: unknown): NormalLabel | null;
}

export const SCALES: Readonly<Record<LabelScale, ScaleSpec>> = {
  verdict: {
    accepts: ITEM_VERDICTS.join('|'),
    categories: ITEM_VERDICTS,
    normalise(label) {
      if (typeof label !== 'string') return null;
      const v = label.trim().toLowerCase();
      if (!(ITEM_VERDICTS as readonly string[]).includes(v)) return null;
      return { category: v, value: VERDICT_POINTS[v as ItemVerdict] };
    },
  },
  binary: {
    accepts: 'true|false, pass|fail, yes|no, 1|0',
    categories: ['true', 'false'],
    normalise(label) {
      const b = BINARY.get(String(label).trim().toLowerCase());
      if (b === undefined) return null;
      return { category: String(b), value: b ? 1 : 0 };
    },
  },
  numeric: {
    accepts: 'a finite number',
    categories: null,
    normalise(label) {
      // Text by the one rule (limit-values.ts readDecimal): Number() would also read "0x10" as 16 and "0b1" as 1, silently.
      // Only a number or its text: Number() would read null and [] as 0, true as 1.
      const n = typeof label === 'string' ? readDecimal(label.trim()) : label;
      return typeof n === 'number' && Number.isFinite(n) ? { category: n, value: n } : null;
    },
  },
};

export function isLabelScale(s: string): s is LabelScale {
  return (LABEL_SCALES as readonly string[]).includes(s);
}

/** Normalises one label or throws badInput naming where it came from. */
export function normaliseLabel(scale: LabelScale, label: unknown, where: string): NormalLabel {
  const spec = SCALES[scale];
  const n = spec.normalise(label);
  if (!n) throw badInput(`${where}: field 'label': ${JSON.stringify(label)} is not valid on the ${scale} scale (expected ${spec.accepts})`);
  return n;
}

/** The first schema problem as "field 'x': message", for one-line errors. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length ? `field '${issue.path.join('.')}'` : 'row'}: ${issue.message}`;
}

function fromInput(r: LabelRowInput, line?: number): LabelRow {
  const row: LabelRow = { answer: String(r.answer), rater: r.rater, kind: r.kind, label: r.label, ...(line === undefined ? {} : { line }) };
  if (r.rubric !== undefined) row.rubric = r.rubric;
  if (r.item !== undefined) row.item = String(r.item);
  if (r.model !== undefined) row.model = r.model;
  return row;
}

/** Rows already checked by LabelRowSchema (a request body): no source lines, so messages name `row N`. */
export function labelRowsFromInput(rows: readonly LabelRowInput[]): LabelRow[] {
  return rows.map((r) => fromInput(r));
}

function validateRow(raw: unknown, source: string, line: number, scale?: LabelScale): LabelRow {
  const parsed = LabelRowSchema.safeParse(raw);
  if (!parsed.success) throw badInput(`${source}: line ${line}: ${firstIssue(parsed.error)}`);
  const row = fromInput(parsed.data, line);
  if (scale) normaliseLabel(scale, row.label, `${source}: line ${line}`);
  return row;
}

/** JSON Lines with their line numbers (blank lines skipped), so row errors can name the line. */
export function jsonLines(text: string, source: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (l.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(l);
    } catch (e) {
      throw badInput(`${source}: line ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    assertStorableJson(value, `${source}: line ${i + 1}`);
    // JSON.parse keeps the last of a key given twice ("label":"correct","label":"incorrect"): refused.
    assertUniqueKeys(l, `${source}: line ${i + 1}`);
    out.push({ line: i + 1, value });
  });
  if (out.length === 0) throw badInput(`${source}: empty (no JSON lines)`);
  return out;
}

/** JSON Lines label file: one row per non-blank line. */
export function parseLabelsJsonl(text: string, source: string, scale?: LabelScale): LabelRow[] {
  return jsonLines(text, source).map(({ line, value }) => validateRow(value, source, line, scale));
}

/** RFC 4180 fields of one CSV line (quotes, doubled quotes; no newlines inside fields). */
function csvFields(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') { field += '"'; i += 2; continue; }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const end = line.indexOf(',', i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      i = end < 0 ? line.length : end;
    }
    out.push(field.trim());
    if (i >= line.length) return out;
    i++;
  }
}

const CSV_COLUMNS = ['answer', 'rubric', 'item', 'model', 'rater', 'kind', 'label', 'note'];

/** CSV label file: a header row naming the columns, then one row per label; empty cells are absent. */
export function parseLabelsCsv(text: string, source: string, scale?: LabelScale): LabelRow[] {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '');
  if (headerAt < 0) throw badInput(`${source}: empty (no header row)`);
  const header = csvFields(lines[headerAt]!.replace(/^\uFEFF/, ''));
  if (!header) throw badInput(`${source}: line ${headerAt + 1}: malformed CSV header`);
  const unknown = header.find((h) => !CSV_COLUMNS.includes(h));
  if (unknown !== undefined) throw badInput(`${source}: line ${headerAt + 1}: unknown column '${unknown}' (expected ${CSV_COLUMNS.join(', ')})`);
  const rows: LabelRow[] = [];
  for (let i = headerAt + 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const cells = csvFields(lines[i]!);
    if (!cells) throw badInput(`${source}: line ${i + 1}: malformed CSV (unbalanced quotes)`);
    if (cells.length !== header.length) throw badInput(`${source}: line ${i + 1}: ${cells.length} cells, header has ${header.length}`);
    const raw: Record<string, string> = {};
    header.forEach((h, k) => {
      if (cells[k] !== '') raw[h] = cells[k]!;
    });
    rows.push(validateRow(raw, source, i + 1, scale));
  }
  if (rows.length === 0) throw badInput(`${source}: empty (a header but no label rows)`);
  return rows;
}

/** By file name: .csv is CSV, anything else JSON Lines. */
export function parseLabels(text: string, source: string, scale?: LabelScale): LabelRow[] {
  return /\.csv$/i.test(source) ? parseLabelsCsv(text, source, scale) : parseLabelsJsonl(text, source, scale);
}

/** calibration/schema.json: the JSON Schema of one label row, generated from the zod schema. */
export function labelJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(LabelRowSchema, { io: 'input' }) as Record<string, unknown>;
  return {
    $schema,
    $id: 'https://assay.invalid/calibration/schema.json',
    title: 'assay label row',
    description:
      'One line of a label set (JSON Lines) for `assay calibrate`: one rater\'s label of one answer or rubric item. Generated from src/domain/labels.ts.',
    ...rest,
  };
}

/** The exact text committed as calibration/schema.json. */
export function labelJsonSchemaText(): string {
  return JSON.stringify(labelJsonSchema(), null, 2) + '\n';
}
