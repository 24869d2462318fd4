import { z } from 'zod';

/**
 * The input limits of assay, in one place: every text field has one length cap, every integer the range
 * of the column it lands in, every JSON document a nesting limit. The API (zod-openapi), the CLI and the
 * importers all build their field schemas from here (src/domain/fields.ts), so a value refused by one
 * front is refused by every front with the same words. Lengths count characters (Unicode code points),
 * as zod does: an emoji is one character.
 */

export * from './limit-values.ts';
import { INT4_MAX, rowIdProblem, textProblem } from './limit-values.ts';

/** A text field: at least `min` (default 1) and at most `max` characters, no NUL, valid Unicode. */
export function text(max: number, opts: { min?: number } = {}) {
  const min = opts.min ?? 1;
  return z
    .string()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .superRefine((s, ctx) => {
      const p = textProblem(s);
      if (p) ctx.addIssue({ code: 'custom', message: p });
    });
}

/** A whole number in [min, INT4_MAX]: the range of the int4 column it is stored in. */
export function int4(min: number, max: number = INT4_MAX) {
  return z
    .number()
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, max === INT4_MAX ? `must be at most ${INT4_MAX} (the range of a 32-bit column)` : `must be at most ${max}`);
}

/** A database row id (serial): 1..2147483647. */
export const RowIdSchema = int4(1);

/** A token count: 0..2147483647. */
export const TokenCountSchema = int4(0);

/** Path and query parameters holding a row id. */
export const RowIdParamSchema = z
  .string()
  .superRefine((s, ctx) => {
    const p = rowIdProblem(s);
    if (p) ctx.addIssue({ code: 'custom', message: p });
  })
  .transform(Number);
