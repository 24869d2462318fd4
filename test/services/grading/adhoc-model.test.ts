import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { openDatabase, type Database } from '../../../src/db/client.ts';
import { createKey } from '../../../src/services/keys.ts';
import { leaderboard } from '../../../src/services/reports.ts';
import { seedExamples } from '../../../src/services/seed.ts';
import { FIXTURES, ROOT, runCli } from '../../helpers/cli.ts';
import { rowCounts } from '../../helpers/db.ts';
import { migratedImage } from '../../helpers/pglite-image.ts';

/**
 * Ad hoc grades carry a model and a run (POST /api/grades `model`/`run`, `assay grade --model/--run`),
 * and an ad hoc answer that names no model is never a model "unknown" on the leaderboards.
 */

let database: Database;
let app: ReturnType<typeof createApp>;
let writeKey: string;
const TEXT = 'A red barn stands behind a wooden fence; two white sheep graze on the green grass in front of it.';

beforeAll(async () => {
  database = await openDatabase({ memory: true, image: await migratedImage() });
  await seedExamples(database);
  writeKey = (await createKey(database, { scopes: ['write'], name: 'w' })).key;
  app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
}, 120_000);
afterAll(() => database?.close());

const post = (body: unknown) =>
  app.request('http://127.0.0.1/api/grades', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${writeKey}` }, body: JSON.stringify(body) });
const runOf = async (answerId: number) =>
  (await database.execute(`select r.name, r.model, rb.slug as rubric from answers a join runs r on r.id = a.run_id left join rubrics rb on rb.id = a.rubric_id where a.id = $1`, [answerId])).rows[0];

describe('POST /api/grades with model and run', () => {
  it('answer text without a model: stored under adhoc, graded, and left off the leaderboard (counted), never a model "unknown"', async () => {
    const r = await post({ answer: TEXT, rubric: 'farmyard-54', judge: 'lexical' });
    expect(r.status).toBe(200);
    const g = (await r.json()) as { answerId: number; status: string };
    expect(g.status).toBe('ok');
    expect(await runOf(g.answerId)).toEqual({ name: 'adhoc', model: 'unknown', rubric: 'farmyard-54' });
    const lb = await leaderboard(database, { judge: 'lexical' }, { seed: 1 });
    expect(lb.rows.map((x) => x.model)).not.toContain('unknown');
    expect(lb.unattributed).toBe(1);
    const page = await (await app.request('http://127.0.0.1/?judge=lexical', { headers: { accept: 'text/html' } })).text();
    expect(page).not.toMatch(/<td>unknown<\/td>/);
    expect(page).toContain('<td><em>none named (ad hoc)</em></td>');
    expect(page).toContain('1 ad hoc answer name no model and is not ranked');
  });

  it('with a model and a run: the answer is that model’s, ranked in its puzzle’s size bucket', async () => {
    const r = await post({ answer: `${TEXT} A farmer waves.`, rubric: 'farmyard-54', judge: 'lexical', model: 'vlm-x', run: 'adhoc-vlm-x' });
    expect(r.status).toBe(200);
    const g = (await r.json()) as { answerId: number; f1: number };
    expect(await runOf(g.answerId)).toEqual({ name: 'adhoc-vlm-x', model: 'vlm-x', rubric: 'farmyard-54' });
    const lb = await leaderboard(database, { judge: 'lexical' }, { seed: 1 });
    const rows = lb.rows.filter((x) => x.model === 'vlm-x');
    // The farmyard rubric belongs to the 6×9 puzzle: bucket ~50, plus "all"; F1 is the grade's own.
    expect(rows.map((x) => [x.sizeBucket, x.descriptions])).toEqual([['~50', 1], ['all', 1]]);
    expect(rows[0]!.f1).toBeCloseTo(g.f1, 12);
  });

  it('a model unlike the run’s is bad input and writes nothing; so are run/model with a stored answer id', async () => {
    const before = await rowCounts(database);
    const r = await post({ answer: `${TEXT} Another.`, rubric: 'farmyard-54', judge: 'lexical', model: 'vlm-y', run: 'adhoc-vlm-x' });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
      "model: run 'adhoc-vlm-x' holds answers of model 'vlm-x', and a run is one model: name another run for 'vlm-y' (--run, or run in the request)",
    );
    const def = await post({ answer: `${TEXT} Again.`, rubric: 'farmyard-54', judge: 'lexical', model: 'vlm-y' });
    expect(def.status).toBe(400);
    expect(((await def.json()) as { error: { message: string } }).error.message).toMatch(/run 'adhoc' holds answers that name no model/);
    const id = Number((await database.execute(`select id from answers order by id limit 1`)).rows[0]!.id);
    const withId = await post({ answerId: id, judge: 'lexical', model: 'vlm-y' });
    expect(withId.status).toBe(400);
    expect(await rowCounts(database)).toEqual(before);
  });
});

describe('assay grade --model', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'assay-adhoc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') });

  it('stores answer text under --run of --model; --model with a stored answer id is bad input', () => {
    const r = runCli(['grade', '--rubric', join(ROOT, 'rubrics/farmyard.yaml'), '--answer', `${FIXTURES}farmyard.answer.txt`, '--model', 'vlm-cli', '--run', 'cli-run', '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const g = JSON.parse(r.stdout) as { answerId: number };
    const answers = runCli(['grade', '--rubric', 'farmyard-54', '--answer', String(g.answerId), '--model', 'vlm-cli'], { env: env() });
    expect(answers.code).toBe(2);
    expect(answers.stderr).toMatch(/--model names the model of an answer given as text/);
  }, 180_000);
});
