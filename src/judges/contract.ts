import { z } from 'zod';
import type { Rubric } from '../domain/rubric.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../domain/verdicts.ts';
import type { JudgeMode } from './config.ts';

/**
 * The judge output contract (issue 5 §2): the one JSON shape every adapter and fake returns.
 * Schemas are strict so an extra field is an error the judge is asked to fix, not data we guess at.
 */
export const RubricOutputSchema = z
  .object({
    items: z.array(
      z.object({ id: z.string().min(1), verdict: z.enum(ITEM_VERDICTS), evidence: z.string() }).strict(),
    ),
    claims: z.array(z.object({ text: z.string(), verdict: z.enum(CLAIM_VERDICTS) }).strict()),
  })
  .strict();

export const ReferenceMatchOutputSchema = z
  .object({ label: z.enum(['pass', 'fail']), rationale: z.string() })
  .strict();

export type RubricOutput = z.infer<typeof RubricOutputSchema>;
export type ReferenceMatchOutput = z.infer<typeof ReferenceMatchOutputSchema>;
export type JudgeOutput = RubricOutput | ReferenceMatchOutput;

/**
 * JSON Schema handed to providers (Anthropic tool input_schema, OpenAI strict json_schema). Written by
 * hand rather than generated: OpenAI strict mode requires every property listed in `required` and
 * `additionalProperties: false` at every level, and the item ids are pinned to this rubric's ids.
 */
export function outputJsonSchema(mode: JudgeMode, rubric: Rubric): Record<string, unknown> {
  if (mode === 'reference-match') {
    return {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'rationale'],
      properties: { label: { type: 'string', enum: ['pass', 'fail'] }, rationale: { type: 'string' } },
    };
  }
  return {
    type: 'object',
    additionalProperties: false,
    required: ['items', 'claims'],
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'verdict', 'evidence'],
          properties: {
            id: { type: 'string', enum: rubric.items.map((i) => i.id) },
            verdict: { type: 'string', enum: [...ITEM_VERDICTS] },
            evidence: { type: 'string', description: 'a short quote of what the answer said, or empty' },
          },
        },
      },
      claims: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'verdict'],
          properties: { text: { type: 'string' }, verdict: { type: 'string', enum: [...CLAIM_VERDICTS] } },
        },
      },
    },
  };
}

export type Validation = { ok: true; output: JudgeOutput } | { ok: false; error: string };

const issueText = (e: z.ZodError): string =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');

/** Schema check plus the rubric checks a schema cannot express: every item exactly once, no others. */
export function validateOutput(mode: JudgeMode, rubric: Rubric, value: unknown): Validation {
  if (mode === 'reference-match') {
    const r = ReferenceMatchOutputSchema.safeParse(value);
    return r.success ? { ok: true, output: r.data } : { ok: false, error: issueText(r.error) };
  }
  const r = RubricOutputSchema.safeParse(value);
  if (!r.success) return { ok: false, error: issueText(r.error) };
  const known = new Set(rubric.items.map((i) => i.id));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const it of r.data.items) {
    if (!known.has(it.id)) problems.push(`unknown item id '${it.id}'`);
    else if (seen.has(it.id)) problems.push(`item '${it.id}' given twice`);
    seen.add(it.id);
  }
  const missing = rubric.items.filter((i) => !seen.has(i.id)).map((i) => i.id);
  if (missing.length) problems.push(`missing item${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}`);
  return problems.length ? { ok: false, error: problems.join('; ') } : { ok: true, output: r.data };
}
