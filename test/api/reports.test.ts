import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { submitAssembly } from '../../src/services/assembly-submit.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * A small hand-built data set whose report values are worked out by hand: model A (runs a-plain at low
 * effort, a-tag "tagged" at high effort) and model B (run b, low effort), describing the farmyard rubric
 * (truth: landscape, 54 pieces) and assembling the 4×4 puzzle p4.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };
const transposed = truth4.layout.map((_, r) => truth4.layout.map((row) => row[r]!));

type Json = Record<string, any>;

describeDb('reports over stored data', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    await importPuzzles(db, [{ path: 'p.jsonl', content: JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16', rubric: 'farmyard-54' }) }]);
    const desc = (run: string, model: string, extra: Json) =>
      JSON.stringify({ id: 'd1', run, model, task: 'describe', puzzle: 'p4', text: 'A farmyard.', output_tokens: 100, ...extra });
    await importAnswersJsonl(db, {
      path: 'a.jsonl',
      content: [
        desc('a-plain', 'A', { effort: 'low' }),
        desc('a-tag', 'A', { effort: 'high', tags: ['tagged'] }),
        desc('b', 'B', { effort: 'low' }),
        JSON.stringify({ id: 'd2', run: 'b', model: 'B', task: 'describe', puzzle: 'p4', text: '' }),
      ].join('\n'),
    });
    await submitAssembly(db, { run: 'a-plain', model: 'A', puzzle: 'p4', id: 'g1', answer: truth4.layout, outputTokens: 50 });
    await submitAssembly(db, { run: 'b', model: 'B', puzzle: 'p4', id: 'g1', answer: transposed });
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('lex', 'lexical', 'lexical', '{}', 'h1')`);
    const grade = async (run: string, f1: number, stated: string | null, pieceError: number | null, items: Json[]) =>
      db.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
         select a.id, (select id from judges where slug = 'lex'), (select id from rubric_versions limit 1), 'ok', $2, $3::jsonb, $4::jsonb
           from answers a join runs r on r.id = a.run_id where r.name = $1 and a.external_id = 'd1'`,
        [
          run,
          f1,
          JSON.stringify(items),
          JSON.stringify({
            orientation: { stated, correct: stated === 'landscape' },
            pieceCount: { stated: pieceError === null ? null : 54, error: pieceError },
          }),
        ],
      );
    await grade('a-plain', 0.8, 'landscape', 0.5, [
      { id: 'barn', verdict: 'correct', weight: 2, points: 1 },
      { id: 'farmer', verdict: 'incorrect', weight: 2, points: 0 },
    ]);
    await grade('a-tag', 0.6, 'portrait', 0.1, []);
    await grade('b', 0.4, null, null, []);
    await db.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label)
       select a.id, v.item, 'h1', 'human', v.label from answers a join runs r on r.id = a.run_id,
         (values ('barn', 'correct'), ('farmer', 'partial')) as v(item, label)
        where r.name = 'a-plain' and a.external_id = 'd1'`,
    );
  });

  it('leaderboard: means per model × bucket, intervals inside the data range, and the random baseline', async () => {
    const lb = await get('/api/reports/leaderboard');
    expect(lb.judge).toBe('lex');
    const rows = lb.rows as Json[];
    const at = (model: string, bucket: string) => rows.find((r) => r.model === model && r.sizeBucket === bucket)!;
    expect(rows.map((r) => `${r.sizeBucket}:${r.model}`)).toEqual(['~16:A', '~16:B', '~16:random baseline', 'all:A', 'all:B', 'all:random baseline']);
    const a = at('A', '~16');
    expect(a).toMatchObject({ descriptions: 2, assemblies: 1, neighbour: 1, direct: 1, proximity: 1 });
    expect(a.f1).toBeCloseTo(0.7, 12);
    expect(a.f1Low).toBeGreaterThanOrEqual(0.6 - 1e-12);
    expect(a.f1High).toBeLessThanOrEqual(0.8 + 1e-12);
    expect(a.f1Low).toBeLessThan(a.f1High);
    expect(at('B', '~16')).toMatchObject({ descriptions: 1, f1: 0.4, assemblies: 1, neighbour: 0, direct: 0.25 });
    // Random baseline on 4×4 (design §2.2): neighbour 1/(N(N+1)) = 1/20, direct 1/16, proximity 0.
    const base = at('random baseline', '~16');
    expect(base).toMatchObject({ baseline: true, assemblies: 2, f1: null, proximity: 0 });
    expect(base.neighbour).toBeCloseTo(1 / 20, 12);
    expect(base.direct).toBeCloseTo(1 / 16, 12);
    // Same seed, same intervals; the CSV carries the same rows.
    expect((await get('/api/reports/leaderboard')).rows).toEqual(rows);
    const csv = await (await api.call(api.keys.read, 'GET', '/api/reports/leaderboard?model=B', { headers: { accept: 'text/csv' } })).text();
    expect(csv.split('\r\n')[0]).toBe(
      'model,sizeBucket,baseline,descriptions,f1,f1Low,f1High,assemblies,noAnswer,errors,neighbour,neighbourLow,neighbourHigh,direct,directLow,directHigh,proximity,proximityLow,proximityHigh,sameFamilyAsJudge',
    );
    expect(csv).toContain('\r\nB,~16,false,1,0.4,0.4,0.4,1,0,0,0,0,0,0.25,0.25,0.25,');
  });

  it('orientation: correct counts by true orientation, Wilson interval of 1/2', async () => {
    const rows = (await get('/api/reports/orientation')).rows as Json[];
    const a = rows.find((r) => r.model === 'A')!;
    expect(a).toMatchObject({ landscapeCorrect: 1, landscapeTotal: 2, portraitCorrect: 0, portraitTotal: 0, notStated: 0, correct: 1, total: 2, accuracy: 0.5 });
    // Wilson 95% for 1/2 (z = 1.959964): 0.5 ∓ 0.4055 → [0.0945, 0.9055].
    expect(a.accuracyLow).toBeCloseTo(0.0945, 4);
    expect(a.accuracyHigh).toBeCloseTo(0.9055, 4);
    expect(rows.find((r) => r.model === 'B')).toMatchObject({ landscapeCorrect: 0, landscapeTotal: 1, notStated: 1, accuracy: 0 });
  });

  it('ablation: tagged vs plain per model, with piece-count error', async () => {
    const rows = (await get('/api/reports/ablation?tag=tagged')).rows as Json[];
    expect(rows.map((r) => [r.model, r.condition, r.f1, r.pieceCountStated, r.pieceCountError])).toEqual([
      ['A', 'tagged', 0.6, 1, 0.1],
      ['A', 'plain', 0.8, 1, 0.5],
      ['B', 'plain', 0.4, 0, null],
    ]);
  });

  it('effort: scores, median output tokens and missing answers per level', async () => {
    const rows = (await get('/api/reports/effort')).rows as Json[];
    expect(rows.map((r) => [r.model, r.effort, r.answers, r.missing, r.f1, r.neighbour, r.medianOutputTokens])).toEqual([
      ['A', 'low', 2, 0, 0.8, 1, 75],
      ['A', 'high', 1, 0, 0.6, null, 100],
      ['B', 'low', 3, 1, 0.4, 0, 100],
    ]);
  });

  it('describe-then-solve: pairs each assembly with its run’s description of the same puzzle', async () => {
    const r = await get('/api/reports/describe-then-solve?threshold=0.5');
    expect(r).toMatchObject({ perception: 'f1', metric: 'neighbour', paired: 2, unpaired: 0 });
    const o = r.report.overall;
    expect([o.n, o.perception.estimate, o.answerGivenPerception.estimate, o.answerGivenNoPerception.estimate, o.answer.estimate]).toEqual([2, 0.5, 1, 0, 0.5]);
    expect(o.identity.holds).toBe(true);
    const csv = await (await api.call(api.keys.read, 'GET', '/api/reports/describe-then-solve', { headers: { accept: 'text/csv' } })).text();
    expect(csv.split('\r\n')[1]).toMatch(/^overall,,,2,0\.5,/);
    const strict = await get('/api/reports/describe-then-solve?perceptionThreshold=0.9');
    expect(strict.report.overall.perception.estimate).toBe(0);
  });

  it('calibration: stored human labels against the judge’s item verdicts', async () => {
    const r = await get('/api/reports/calibration?scale=verdict');
    expect(r.humans).toEqual(['h1']);
    expect(r.judges).toEqual(['lex']);
    expect(r.units).toBe(2);
  });

  it('rejects bad report parameters and unknown judges', async () => {
    const bad = await api.call(api.keys.read, 'GET', '/api/reports/describe-then-solve?metric=bogus');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.message).toMatch(/^query\.metric: /);
    const unknown = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard?judge=nobody');
    expect(unknown.status).toBe(404);
  });
});
