import { readFileSync } from 'node:fs';
import { createApp } from '../../src/app.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { createKey } from '../../src/services/keys.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { saveAnnotation } from '../../src/services/web-annotation.ts';
import { migratedImage } from '../helpers/pglite-image.ts';

/**
 * A real server over an in-memory database holding the bundled examples plus what the pages need to
 * show everything: lexical-baseline grades, a run with a description and an assembly of the same
 * puzzle (describe-then-solve), a hostile answer and model name (escaping), human labels from two
 * annotators (calibration, human–human agreement), and keys per scope.
 */

export const HOSTILE_TEXT = 'The picture shows a barn. <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned=2"> & a farmer.';
export const HOSTILE_MODEL = '<b>evil</b>-model';

export interface WebFixture {
  database: Database;
  server: RunningServer;
  keys: { admin: string; read: string; annotate: string; annotate2: string };
  ids: { farmyard: number; hostile: number; shifted: number; unlabelled: number };
  close(): Promise<void>;
}

const fixtureText = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

export async function startWebFixture(opts: { host?: string } = {}): Promise<WebFixture> {
  const database = await openDatabase({ memory: true, image: await migratedImage() });
  await seedExamples(database);
  const farmyardText = fixtureText('farmyard.answer.txt');
  const rows = [
    { id: 'describe', run: 'dts-run', model: 'example', task: 'describe', rubric: 'farmyard-54', puzzle: 'farmyard-6x9', text: farmyardText },
    { id: 'assemble', run: 'dts-run', model: 'example', task: 'assemble', puzzle: 'farmyard-6x9', text: fixtureText('grid-answer-shifted.txt') },
    { id: 'hostile', run: 'xss-run', model: HOSTILE_MODEL, task: 'describe', rubric: 'farmyard-54', puzzle: 'farmyard-6x9', text: HOSTILE_TEXT },
    { id: 'assemble', run: 'xss-run', model: HOSTILE_MODEL, task: 'assemble', puzzle: 'farmyard-6x9', text: fixtureText('grid-answer-perfect.txt') },
  ];
  await importAnswersJsonl(database, { path: 'web-fixture.jsonl', content: rows.map((r) => JSON.stringify(r)).join('\n') });
  const idOf = async (run: string, ext: string) =>
    Number((await database.execute(`select a.id from answers a join runs r on r.id = a.run_id where r.name = $1 and a.external_id = $2`, [run, ext])).rows[0].id);
  const ids = {
    farmyard: await idOf('farmyard-describe', 'farmyard-describe'),
    hostile: await idOf('xss-run', 'hostile'),
    shifted: await idOf('dts-run', 'assemble'),
    unlabelled: await idOf('dts-run', 'describe'),
  };
  for (const id of [ids.farmyard, ids.hostile, ids.unlabelled]) await gradeAnswer(database, { answer: { id }, judge: 'lexical' });
  // Two annotators on the farmyard answer: they disagree on one item, so agreement is below 1.
  const items = (await database.execute(`select ri.item_key from rubric_items ri join rubric_versions rv on rv.id = ri.rubric_version_id join rubrics r on r.id = rv.rubric_id where r.slug = 'farmyard-54' order by ri.position`)).rows.map((r) => String(r.item_key));
  const verdicts = ['correct', 'missing', 'partial', 'incorrect'] as const;
  for (const [n, item] of items.entries()) {
    await saveAnnotation(database, { answerId: ids.farmyard, annotator: 'ann-one', item, label: verdicts[n % 4]! });
    await saveAnnotation(database, { answerId: ids.farmyard, annotator: 'ann-two', item, label: verdicts[(n === 0 ? 1 : n) % 4]! });
  }
  const keys = {
    admin: (await createKey(database, { scopes: ['admin'], name: 'web admin' })).key,
    read: (await createKey(database, { scopes: ['read'], name: 'web reader' })).key,
    annotate: (await createKey(database, { scopes: ['annotate'], name: 'annotator-a' })).key,
    annotate2: (await createKey(database, { scopes: ['annotate'], name: 'annotator-b' })).key,
  };
  const app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, ...(opts.host ? { host: opts.host } : {}) }, log: () => {} });
  const server = await listen(app.fetch, '127.0.0.1', 0);
  return {
    database,
    server,
    keys,
    ids,
    close: async () => {
      await server.close();
      await database.close();
    },
  };
}
