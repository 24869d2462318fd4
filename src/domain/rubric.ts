import { z } from 'zod';
import { Fields } from './fields.ts';
import { int4, MAX_GRID_SIDE } from './limits.ts';

/**
 * Rubric files (design §4). The zod schema is the source of truth; rubrics/schema.json is generated
 * from it (test/domain asserts they agree) so editors can validate YAML as users write it.
 */
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
    });
  });

export type RubricItem = z.infer<typeof RubricItemSchema>;
export type RubricTruth = z.infer<typeof RubricTruthSchema>;
export type Rubric = z.infer<typeof RubricSchema>;
