import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { RubricSchema } from '../../../src/domain/rubric.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { createKey } from '../../../src/services/keys.ts';
import { importParsedRubrics } from '../../../src/services/rubrics.ts';
import { FIXTURES, runCli } from '../../helpers/cli.ts';
import { migratedImage } from '../../helpers/pglite-image.ts';

/**
 * One grade, one JSON shape: the same answer graded on two fresh databases, once by `assay grade --json`
 * and once by POST /api/grades, gives the same document — except the two fields that say when and how
 * fast it was written (VOLATILE). The stored grade read back for /answers/:id is that document too.
 */
const VOLATILE = ['createdAt', 'usage.latencyMs'] as const;
const withoutVolatile = (g: any) => {
  const { createdAt: _c, usage, ...rest } = g;
  const { latencyMs: _l, ...u } = usage;
  return { ...rest, usage: u };
};

describe('the grade shape', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-grade-shape-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`assay grade --json and POST /api/grades return the same grade (modulo ${VOLATILE.join(', ')})`, async () => {
    const env = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    const cli = runCli(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--json'], { env });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const fromCli = cli.json();

    const database = await openDatabase({ memory: true, image: await migratedImage() });
    try {
      await importParsedRubrics(database, [RubricSchema.parse(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')))]);
      const key = (await createKey(database, { scopes: ['write'], name: 'w' })).key;
      const app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
      const res = await app.request('/api/grades', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ answer: readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8'), rubric: 'farmyard-54' }),
      });
      expect(res.status).toBe(200);
      const fromApi = (await res.json()) as any;

      expect(Object.keys(fromApi)).toEqual(Object.keys(fromCli));
      expect(withoutVolatile(fromApi)).toEqual(withoutVolatile(fromCli));
      // Not vacuous: a real grade, with the fields that used to differ between the two.
      expect(fromCli).toMatchObject({ gradeId: 1, answerId: 1, status: 'ok', rubric: { id: 'farmyard-54', version: 1 }, judge: { id: 'lexical', baseline: true } });
      expect(fromCli.items.length).toBeGreaterThan(0);
      expect(fromCli.meta).not.toHaveProperty('gradeId');

      // Both stored the answer text in the same default run.
      expect((await database.execute(`select r.name from runs r join answers a on a.run_id = r.id where a.id = $1`, [fromApi.answerId])).rows[0].name).toBe('adhoc');
      // The stored grade, as the answer page reads it, is the same document (nothing volatile here).
      const [stored] = await gradesOfAnswer(database, fromApi.answerId);
      expect(JSON.parse(JSON.stringify(stored!.grade))).toEqual(fromApi);

      // docs/grades.md documents this shape: its example has the same fields, and its table names each one.
      const doc = readFileSync(new URL('../../../docs/grades.md', import.meta.url), 'utf8');
      const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc)![1]!);
      const shape = (g: any) => ({ top: Object.keys(g), usage: Object.keys(g.usage), judge: Object.keys(g.judge), rubric: Object.keys(g.rubric), item: Object.keys(g.items[0]), claim: Object.keys(g.claims[0]), meta: Object.keys(g.meta).sort() });
      expect(shape(example)).toEqual(shape(fromCli));
      for (const field of [...Object.keys(fromCli).filter((k) => k !== 'meta' && k !== 'usage'), ...Object.keys(fromCli.usage).map((k) => `usage.${k}`), ...Object.keys(fromCli.meta).map((k) => `meta.${k}`)]) {
        expect(doc, field).toContain(`\`${field}\``);
      }
    } finally {
      await database.close();
    }
  }, 300_000);
});
