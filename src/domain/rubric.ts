import { z } from 'zod';
import { Fields } from './fields.ts';
import { int4, MAX_GRID_SIDE } from './limits.ts';

/**
 * Rubric files (design §4). The zod schema is the source of truth; rubrics/schema.json is generated
 * from it (test/domain asserts they agree) so editors can validate YAML as users write it.
 */
/** The smallest weight whose half point is exact (the smallest normal double), and the largest total. */
export const MIN_WEIGHT = 2.2250738585072014e-308;
export const MAX_TOTAL_WEIGHT = 1e300;

export const RubricItemSchema = z
  .object({
    id: Fields.itemId,
    text: Fields.itemText,
    weight: z.number().positive().finite(),
    tags: z.array(Fields.tag).max(100).optional(),
  })
  .strict();

export const RubricTruthSchema = z
  .object({
    orientation: z.enum(['landscape', 'portrait']).optional(),
    grid: z.object({ rows: int4(1, MAX_GRID_SIDE), cols: int4(1, MAX_GRID_SIDE) }).strict().optional(),
    pieces: int4(1).optional(),
  })
  .strict();

export const RubricSchema = z
  .object({
    id: Fields.rubricId,
    title: Fields.rubricTitle,
    reference: Fields.rubricReference,
    image: Fields.path.optional(),
    truth: RubricTruthSchema.optional(),
    items: z.array(RubricItemSchema).min(1).max(1000),
    source: Fields.source.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const seen = new Set<string>();
    r.items.forEach((it, i) => {
      if (seen.has(it.id)) ctx.addIssue({ code: 'custom', path: ['items', i, 'id'], message: `duplicate item id '${it.id}'` });
      seen.add(it.id);
      // weight × 0.5 of a subnormal weight rounds (5e-324 × 0.5 = 0): a partial would score as missing.
      if (it.weight < MIN_WEIGHT) ctx.addIssue({ code: 'custom', path: ['items', i, 'weight'], message: `too small to score (below ${MIN_WEIGHT}; only ratios matter: scale the weights up)` });
    });
    // Past the largest double the sums are Infinity and completeness NaN; 1e300 leaves room for a batch's sums.
    const total = r.items.reduce((s, it) => s + it.weight, 0);
    if (!(total <= MAX_TOTAL_WEIGHT)) ctx.addIssue({ code: 'custom', path: ['items'], message: `the weights sum to more than a number can hold (over ${MAX_TOTAL_WEIGHT}; only ratios matter: scale them down)` });
  });

export type RubricItem = z.infer<typeof RubricItemSchema>;
export type RubricTruth = z.infer<typeof RubricTruthSchema>;
export type Rubric = z.infer<typeof RubricSchema>;
