import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { useApi } from '../api/app-fixture.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { anchoredScript, seedAnchored } from './anchored-fixture.ts';

/**
 * The calibration report's excludedExamples counts, per anchored judge, the answers of THIS report left
 * out of its figures (docs/http-api.md): with ?rubric= only that rubric's. The judge `anch-two` was shown
 * e1 of run anch (rubric farmyard-54) and h1 of run harb (rubric example-small); e1 and h1 both carry
 * human labels and its grades. Over ?rubric=farmyard-54 one answer (e1) is left out, over
 * ?rubric=example-small one (h1), over every rubric two.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
const quiet = { sleep: async () => {}, random: mulberry32(3) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });

describeDb('anchored judges: the excluded count of a rubric-filtered report', (ctx) => {
  const api = useApi(ctx);
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-scope-'));
  const get = async (path: string): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    const ids = await seedAnchored(ctx.database);
    const harbour = parseYaml(readFileSync(`${FIXTURES}calibration-small.rubric.yaml`, 'utf8')) as Rubric;
    await importParsedRubrics(ctx.database, [harbour]);
    await importAnswersJsonl(ctx.database, {
      path: 'harb.jsonl',
      content: ['h1', 'h2'].map((id) => JSON.stringify({ id, run: 'harb', model: 'M', task: 'describe', rubric: 'example-small', text: `Harbour ${id}: three boats.` })).join('\n'),
    });
    await ctx.database.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label) select a.id, 'i1', 'h1', 'human', 'correct' from answers a join runs r on r.id = a.run_id where r.name = 'harb'`,
    );
    const file = join(dir, 'anch-two.yaml');
    writeFileSync(
      file,
      'id: anch-two\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\nexamples:\n  - { run: anch, answer: e1 }\n  - { run: harb, answer: h1 }\n',
    );
    for (const id of ['e1', 'x1', 'x2', 'x3']) await gradeAnswer(ctx.database, { judge: file, keys: keysFor(fake), engine: quiet, answer: { id: ids.get(id)! } });
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts only the filtered rubric’s example answers', async () => {
    expect((await get('/api/reports/calibration?scale=verdict&judge=anch-two')).excludedExamples).toEqual({ 'anch-two': 2 });
    const farm = await get('/api/reports/calibration?scale=verdict&judge=anch-two&rubric=farmyard-54');
    // The judge's rows of e1 are out; x1–x3 are in (3 answers × 2 items).
    expect(farm.excludedExamples).toEqual({ 'anch-two': 1 });
    expect((await get('/api/reports/calibration?scale=verdict&judge=anch-two&rubric=example-small')).excludedExamples).toEqual({ 'anch-two': 1 });
    // As the run filter over the same answers says it.
    expect((await get('/api/reports/calibration?scale=verdict&judge=anch-two&run=anch')).excludedExamples).toEqual({ 'anch-two': 1 });
  });
});
