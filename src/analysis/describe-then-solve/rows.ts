import { z } from 'zod';
import { badInput } from '../../domain/errors.ts';
import { firstIssue, jsonLines } from '../../domain/labels.ts';
import type { DtsRow } from './types.ts';

/** One input row of `assay analyze describe-then-solve` (design §3). */
export const DtsRowSchema = z
  .object({
    model: z.string().min(1),
    item: z.union([z.string().min(1), z.number()]),
    slice: z.union([z.string().min(1), z.number()]).optional(),
    perception: z.union([z.boolean(), z.number().finite()]),
    answer: z.union([z.boolean(), z.number().finite()]),
  })
  .strict();

/** Parses a JSON Lines file of rows; errors name the file, the line and the field. */
export function parseDtsJsonl(text: string, source: string): DtsRow[] {
  return jsonLines(text, source).map(({ line, value }) => {
    const parsed = DtsRowSchema.safeParse(value);
    if (!parsed.success) throw badInput(`${source}: line ${line}: ${firstIssue(parsed.error)}`);
    const r = parsed.data;
    const row: DtsRow = { model: r.model, item: String(r.item), perception: r.perception, answer: r.answer, line };
    if (r.slice !== undefined) row.slice = String(r.slice);
    return row;
  });
}
