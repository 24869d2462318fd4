import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { RubricSchema } from '../../src/domain/rubric.ts';
import { rubricJsonSchema, rubricJsonSchemaText } from '../../src/scoring/description/rubric.ts';
import { FIXTURES, ROOT } from '../helpers/cli.ts';

const REGENERATE =
  `node --import tsx -e "import('./src/scoring/description/rubric.ts').then((m) => process.stdout.write(m.rubricJsonSchemaText()))" > rubrics/schema.json`;

const committed = readFileSync(`${ROOT}rubrics/schema.json`, 'utf8');
const farmyard = parseYaml(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8')) as Record<string, unknown>;

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  return ajv.compile(JSON.parse(committed));
}

describe('rubrics/schema.json', () => {
  it('is exactly the schema generated from the zod RubricSchema', () => {
    expect(committed, `rubrics/schema.json is stale; regenerate it from the repository root with:\n  ${REGENERATE}\n`).toBe(
      rubricJsonSchemaText(),
    );
  });

  it('requires the fields and forbids unknown ones, like the zod schema', () => {
    const s = rubricJsonSchema() as { required: string[]; additionalProperties: boolean };
    expect(s.required).toEqual(['id', 'title', 'reference', 'items']);
    expect(s.additionalProperties).toBe(false);
  });

  it('accepts the bundled farmyard rubric under ajv (and so does zod)', () => {
    const validate = validator();
    expect(validate(farmyard), JSON.stringify(validate.errors)).toBe(true);
    expect(RubricSchema.safeParse(farmyard).success).toBe(true);
  });

  it('rejects a negative weight, naming the field', () => {
    const validate = validator();
    const items = (farmyard.items as Array<Record<string, unknown>>).map((it, i) => (i === 3 ? { ...it, weight: -1 } : it));
    expect(validate({ ...farmyard, items })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain('/items/3/weight');
  });

  it('rejects a zero weight (weights are > 0, not ≥ 0)', () => {
    const validate = validator();
    const items = (farmyard.items as Array<Record<string, unknown>>).map((it, i) => (i === 0 ? { ...it, weight: 0 } : it));
    expect(validate({ ...farmyard, items })).toBe(false);
  });

  it('rejects a rubric missing its reference, and an item missing its text', () => {
    const validate = validator();
    const { reference: _omit, ...noReference } = farmyard;
    expect(validate(noReference)).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === 'required' && e.params.missingProperty === 'reference')).toBe(true);
    const items = [{ id: 'barn', weight: 1 }];
    expect(validate({ ...farmyard, items })).toBe(false);
    expect(validate.errors?.some((e) => e.params.missingProperty === 'text')).toBe(true);
  });

  it('rejects a bad truth (orientation outside the vocabulary, fractional grid)', () => {
    const validate = validator();
    expect(validate({ ...farmyard, truth: { orientation: 'square' } })).toBe(false);
    expect(validate({ ...farmyard, truth: { grid: { rows: 6.5, cols: 9 } } })).toBe(false);
  });
});

describe('rubrics/farmyard.yaml', () => {
  it('is the test fixture, header comment included', () => {
    const fixtureText = readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8');
    expect(farmyard).toEqual(parseYaml(fixtureText));
    const header = fixtureText.split('\n')[0]!;
    expect(header.startsWith('#')).toBe(true);
    expect(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8').split('\n')[0]).toBe(header);
  });
});
