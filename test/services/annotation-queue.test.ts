import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createKey } from '../../src/services/keys.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { migratedImage } from '../helpers/pglite-image.ts';

/**
 * GET /api/annotations/queue lists only answers a person can annotate (services/annotation-queue.ts
 * ANNOTATABLE): descriptions with text and a rubric that has items. On the bundled data that is the 107
 * descriptions the seed grades; the no_answer description, the assemblies, and rows added here with
 * blank text, without a rubric, or with a rubric that has no items are left out.
 */

let database: Database;
let app: ReturnType<typeof createApp>;
let key: string;

beforeAll(async () => {
  database = await openDatabase({ memory: true, image: await migratedImage() });
  await seedExamples(database);
  key = (await createKey(database, { scopes: ['annotate'], name: 'annotator-q' })).key;
  const run = Number((await database.execute(`insert into runs (name, model) values ('queue-run', 'm') returning id`)).rows[0]!.id);
  const rubric = Number((await database.execute(`select id from rubrics where slug = 'farmyard-54'`)).rows[0]!.id);
  const empty = Number((await database.execute(`insert into rubrics (slug, title) values ('no-items', 'No items') returning id`)).rows[0]!.id);
  await database.execute(`insert into rubric_versions (rubric_id, version, title, reference, content_hash) values ($1, 1, 'No items', 'ref', 'h')`, [empty]);
  for (const [ext, text, rubricId] of [['blank', '   \n ', rubric], ['no-rubric', 'A barn.', null], ['no-items', 'A barn.', empty], ['fine', 'A red barn and two sheep.', rubric]] as const) {
    await database.execute(`insert into answers (run_id, external_id, task, text, rubric_id) values ($1, $2, 'describe', $3, $4)`, [run, ext, text, rubricId]);
  }
  app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
}, 120_000);
afterAll(() => database?.close());

const queue = async (q: string) => {
  const res = await app.request(`http://127.0.0.1/api/annotations/queue?${q}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { total: number; items: Array<{ answer: string; run: string; text: string | null; rubric: string | null }> };
};

it('lists descriptions with text and a rubric with items, nothing else', async () => {
  const all = await queue('limit=200');
  expect(all.total).toBe(108);
  expect(all.items).toHaveLength(108);
  for (const it of all.items) {
    expect(it.text?.trim(), it.answer).toBeTruthy();
    expect(it.rubric, it.answer).not.toBeNull();
  }
  const names = all.items.map((i) => i.answer);
  expect(names).not.toContain('c-high-describe');
  expect(names.filter((n) => n.endsWith('-assemble'))).toEqual([]);
  const mine = await queue('run=queue-run');
  expect(mine.items.map((i) => i.answer)).toEqual(['fine']);
  expect(mine.total).toBe(1);
});
