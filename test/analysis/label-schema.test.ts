import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { LabelRowSchema, labelJsonSchemaText } from '../../src/domain/labels.ts';
import { RubricSchema } from '../../src/domain/rubric.ts';
import { FIXTURES, ROOT } from '../helpers/cli.ts';

const REGENERATE = `node --import tsx -e "import('./src/domain/labels.ts').then((m) => process.stdout.write(m.labelJsonSchemaText()))" > calibration/schema.json`;
const committed = readFileSync(`${ROOT}calibration/schema.json`, 'utf8');
const example = readFileSync(`${ROOT}calibration/example-small.jsonl`, 'utf8');
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(committed));

describe('calibration/schema.json', () => {
  it('is exactly the schema generated from the zod LabelRowSchema', () => {
    expect(committed, `calibration/schema.json is stale; regenerate it from the repository root with:\n  ${REGENERATE}\n`).toBe(labelJsonSchemaText());
  });

  it('accepts every row of the example label set (and so does zod)', () => {
    const rows = example.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(rows).toHaveLength(120);
    for (const row of rows) {
      expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
      expect(LabelRowSchema.safeParse(row).success).toBe(true);
    }
  });

  it('rejects what zod rejects: a bad kind, a missing rater, an unknown field', () => {
    const bad = [
      { answer: 'a', rater: 'h', kind: 'robot', label: 'correct' },
      { answer: 'a', kind: 'human', label: 'correct' },
      { answer: 'a', rater: 'h', kind: 'human', label: 'correct', rator: 'x' },
      { answer: 'a', rater: 'h', kind: 'human', label: null },
    ];
    for (const row of bad) {
      expect(validate(row)).toBe(false);
      expect(LabelRowSchema.safeParse(row).success).toBe(false);
    }
  });
});

describe('calibration/ example set', () => {
  it('is the test fixture the calibration tests compute by hand, with its rubric', () => {
    expect(example).toBe(readFileSync(`${FIXTURES}calibration-small.jsonl`, 'utf8'));
    const rubricText = readFileSync(`${ROOT}calibration/example-small.rubric.yaml`, 'utf8');
    expect(rubricText).toBe(readFileSync(`${FIXTURES}calibration-small.rubric.yaml`, 'utf8'));
    const rubric = RubricSchema.parse(parseYaml(rubricText));
    expect(rubric.items.map((i) => i.id)).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
  });
});
