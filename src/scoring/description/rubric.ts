import { z } from 'zod';
import { badInput } from '../../domain/errors.ts';
import { RubricSchema, type Rubric } from '../../domain/rubric.ts';
import { VerdictsSchema, type Verdicts } from '../../domain/verdicts.ts';

/** `items[3].weight: must be > 0` — the first zod issue as one line (path, then message). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}

function parseWith<T>(schema: z.ZodType<T>, raw: unknown, where: string): T {
  const r = schema.safeParse(raw);
  if (!r.success) throw badInput(`${where}: ${firstIssue(r.error)}`);
  return r.data;
}

/** A rubric from parsed YAML/JSON; bad input names `where` and the first problem. */
export function parseRubric(raw: unknown, where: string): Rubric {
  return parseWith(RubricSchema, raw, where);
}

/** A verdicts document (`{"items":[{"id","verdict"}],"claims":[{"text"?,"verdict"}]}`). */
export function parseVerdicts(raw: unknown, where: string): Verdicts {
  return parseWith(VerdictsSchema, raw, where);
}

/** rubrics/schema.json: the JSON Schema of rubric files, generated from the zod schema. */
export function rubricJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(RubricSchema, { io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: 'https://assay.invalid/rubrics/schema.json',
    title: 'assay rubric',
    description: 'A weighted rubric for grading a picture description (design §4). Generated from src/domain/rubric.ts.',
    ...rest,
  };
}

/** The exact text committed as rubrics/schema.json. */
export function rubricJsonSchemaText(): string {
  return JSON.stringify(rubricJsonSchema(), null, 2) + '\n';
}
