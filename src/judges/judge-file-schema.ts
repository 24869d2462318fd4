import { z } from 'zod';
import { JudgeConfigSchema } from './config.ts';
import { PanelConfigSchema } from './panel-config.ts';

/**
 * judges/schema.json: the JSON Schema of every judge file, generated from the two zod schemas — a
 * single judge (src/judges/config.ts) or, when `provider` is `panel`, a panel (src/judges/panel-config.ts).
 * `if`/`then`/`else` on the provider rather than `anyOf`, so an editor reports the errors of the right
 * branch instead of both. test/judges/config.test.ts asserts the committed file is this text.
 */
const REGENERATE = `node --import tsx -e "import('./src/judges/judge-file-schema.ts').then(m=>process.stdout.write(m.judgeFileJsonSchemaText()))" > judges/schema.json`;

function body(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

export function judgeFileJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://assay.invalid/judges/schema.json',
    title: 'assay judge',
    description: `A judge configuration (design §4) or a panel of judges (provider: panel, design §2.5). Generated from src/judges/config.ts and src/judges/panel-config.ts; regenerate with: ${REGENERATE}`,
    type: 'object',
    if: { properties: { provider: { const: 'panel' } }, required: ['provider'] },
    then: body(PanelConfigSchema),
    else: body(JudgeConfigSchema),
  };
}

/** The exact text committed as judges/schema.json. */
export const judgeFileJsonSchemaText = (): string => JSON.stringify(judgeFileJsonSchema(), null, 2) + '\n';
