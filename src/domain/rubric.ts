import { z } from 'zod';

/**
 * Rubric files (design §4). The zod schema is the source of truth; rubrics/schema.json is generated
 * from it (test/domain asserts they agree) so editors can validate YAML as users write it.
 */
export const RubricItemSchema = z
  .object({
    id: z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'item ids are letters, digits, . _ -'),
    text: z.string().min(1),
    weight: z.number().positive().finite(),
    tags: z.array(z.string()).optional(),
  })
  .strict();

export const RubricTruthSchema = z
  .object({
    orientation: z.enum(['landscape', 'portrait']).optional(),
    grid: z.object({ rows: z.number().int().positive(), cols: z.number().int().positive() }).strict().optional(),
    pieces: z.number().int().positive().optional(),
  })
  .strict();

export const RubricSchema = z
  .object({
    id: z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'rubric ids are letters, digits, . _ -'),
    title: z.string().min(1),
    reference: z.string().min(1),
    image: z.string().min(1).optional(),
    truth: RubricTruthSchema.optional(),
    items: z.array(RubricItemSchema).min(1),
    source: z.string().optional(),
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
