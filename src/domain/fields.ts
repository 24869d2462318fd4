import { z } from 'zod';
import { jsonValueProblem } from './json-check.ts';
import { CAPS, int4, RowIdSchema, text, TokenCountSchema } from './limits.ts';

/**
 * One schema per input field, shared by the API routes, the CLI and the importers (docs/input-limits.md
 * lists them). A route or a file format picks its fields from here instead of writing
 * `z.string().min(1)` again, so a cap cannot differ between fronts.
 */

const SLUG_CHARS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** An identifier of letters, digits, . _ - (rubric, puzzle, item and judge ids). */
export const slug = (what: string) => text(CAPS.name).regex(SLUG_CHARS, `${what} are letters, digits, . _ -`);

/**
 * A JSON object stored whole (an answer's meta): nesting, NUL, lone surrogates and non-finite numbers
 * are refused by an iterative walk, and its compact JSON must fit CAPS.jsonDocument.
 */
export const JsonObjectSchema = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const p = jsonValueProblem(v);
  if (p) {
    ctx.addIssue({ code: 'custom', path: p.path, message: p.problem });
    return;
  }
  if (JSON.stringify(v).length > CAPS.jsonDocument) ctx.addIssue({ code: 'custom', message: `must be at most ${CAPS.jsonDocument} characters as JSON` });
});

/** Any JSON value (an assembly answer in JSON form) under the same walk. */
export const JsonValueSchema = z.unknown().superRefine((v, ctx) => {
  const p = jsonValueProblem(v);
  if (p) ctx.addIssue({ code: 'custom', path: p.path, message: p.problem });
});

export const Fields = {
  /** Run names (a model at an effort under condition tags). */
  run: text(CAPS.name),
  model: text(CAPS.name),
  effort: text(CAPS.name),
  /** One condition tag of a run. */
  tag: text(CAPS.name),
  /** An answer's id within its run (the "id" of an imported row). */
  answerExternalId: text(CAPS.name),
  /** The answer text a model gave. */
  answerText: text(CAPS.longText, { min: 0 }),
  /** A provider's stop / finish reason. */
  stopReason: text(CAPS.name, { min: 0 }),
  /** A reference to a stored rubric or puzzle by id (existence is checked by the service). */
  ref: text(CAPS.name),
  rubricId: slug('rubric ids'),
  puzzleId: slug('puzzle ids'),
  itemId: slug('item ids'),
  judgeId: slug('judge ids'),
  rubricTitle: text(CAPS.title),
  rubricReference: text(CAPS.longText),
  itemText: text(CAPS.itemText),
  path: text(CAPS.path),
  source: text(CAPS.path),
  sizeBucket: text(CAPS.name),
  /** A label value (a verdict, a binary or numeric label written as text). */
  label: text(CAPS.name),
  /** Who labelled: a person or a judge id. */
  annotator: text(CAPS.name),
  /** A label's rubric item id as written in label files (any text; checked against the rubric). */
  labelItem: text(CAPS.name),
  note: text(CAPS.note, { min: 0 }),
  keyName: text(CAPS.name),
  pieceId: text(CAPS.name),
  /** Database ids: 1..2147483647. */
  rowId: RowIdSchema,
  /** Token counts: 0..2147483647. */
  tokens: TokenCountSchema,
  /** A rubric version number. */
  version: int4(1),
  meta: JsonObjectSchema,
} as const;
