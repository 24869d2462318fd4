import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { pageCalibration } from '../../src/services/web-calibration.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';

/**
 * The calibration over stored labels on every surface (GET /api/reports/calibration, the /calibration
 * page): one rule for labels of another scale (set aside and counted, never a 400 for the whole report),
 * the same figures for the same seed, and a judge that exists but graded nothing is answered alike.
 * Run r, model A, answers d1, d2 of the farmyard rubric; judge 'lex' graded both; 'idle' exists and graded nothing.
 * People: h1 labelled barn and farmer of d1 and d2, and imported a whole-answer 'pass' for d1 (another
 * scale than verdict); h2 labelled barn and farmer of d1.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
type Json = Record<string, any>;

describeDb('calibration: one rule on the API and the page', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string, status = 200): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    const body = (await res.json()) as Json;
    expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(status);
    return body;
  };
  const page = async (path: string): Promise<{ status: number; text: string }> => {
    const res = await api.app.request(path, { headers: { accept: 'text/html' } });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    const desc = (id: string) => JSON.stringify({ id, run: 'r', model: 'A', task: 'describe', rubric: 'farmyard-54', text: `A farmyard ${id}.` });
    await importAnswersJsonl(db, { path: 'a.jsonl', content: [desc('d1'), desc('d2')].join('\n') });
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('lex', 'lexical', 'lexical', '{}', 'h1'), ('idle', 'lexical', 'lexical', '{}', 'h2')`);
    await db.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
       select a.id, (select id from judges where slug = 'lex'), (select id from rubric_versions limit 1), 'ok', 0.5, v.items::jsonb, '{}'::jsonb
         from answers a join (values ('d1', '[{"id":"barn","verdict":"correct"},{"id":"farmer","verdict":"incorrect"}]'),
                                     ('d2', '[{"id":"barn","verdict":"partial"},{"id":"farmer","verdict":"incorrect"}]')) as v(id, items) on v.id = a.external_id`,
    );
    await db.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label)
       select a.id, v.item, v.who, 'human', v.label from answers a join (values
         ('d1', 'barn', 'h1', 'correct'), ('d1', 'farmer', 'h1', 'partial'), ('d2', 'barn', 'h1', 'correct'), ('d2', 'farmer', 'h1', 'incorrect'),
         ('d1', '', 'h1', 'pass'),
         ('d1', 'barn', 'h2', 'correct'), ('d1', 'farmer', 'h2', 'incorrect')) as v(id, item, who, label) on v.id = a.external_id`,
    );
  });

  it('labels of another scale are set aside and counted on the API as on the page, with the same figures', async () => {
    const fromPage = await pageCalibration(ctx.database, { scale: 'verdict' });
    expect(fromPage.setAside).toBe(1);
    expect(fromPage.report?.units).toBe(4);
    const r = await get('/api/reports/calibration?scale=verdict');
    expect(r.units).toBe(4);
    expect(r.humans).toEqual(['h1', 'h2']);
    expect(r.judges).toEqual(['idle', 'lex'].filter((j) => fromPage.report!.judges.includes(j)));
    // What was set aside is stated on both.
    expect(r.setAside).toBe(1);
    expect(r.notes).toContain('1 label(s) of another scale than verdict, or claim marks, set aside');
    expect(r.excludedExamples).toEqual({});
    // The same seed, the same figures, intervals included.
    const { judgeNotes: _a, setAside: _b, excludedExamples: _c, unverifiable: _d, unverifiableNote: _e, ...apiReport } = r;
    expect(JSON.parse(JSON.stringify(fromPage.report))).toEqual(apiReport);
    const html = await page('/calibration?scale=verdict');
    expect(html.status).toBe(200);
    expect(html.text).toContain('1 label(s) of another scale than verdict, or claim marks, set aside');
  });

  it('the page and the API read the judges table of the same seed the same', async () => {
    const lex = (await get('/api/reports/calibration?scale=verdict&judge=lex&seed=1')).judgeReports[0];
    const { rows } = JSON.parse((await page('/calibration?scale=verdict&judge=lex&table=judges&format=json')).text) as { rows: Json[] };
    expect(rows.length).toBe(1);
    expect(rows[0]!.kappa).toBe(lex.vsMajority.kappa.kappa);
    expect([rows[0]!.weightedKappaLow, rows[0]!.weightedKappaHigh]).toEqual(lex.vsMajority.weightedKappa.ci);
  });

  it('a judge that exists but graded none of the labelled answers: an empty judge side on the API and the page, never a 400 or a 404', async () => {
    const r = await get('/api/reports/calibration?scale=verdict&judge=idle');
    expect(r.judges).toEqual([]);
    expect(r.judgeReports).toEqual([]);
    expect(r.units).toBe(4);
    expect(r.notes.join('\n')).toMatch(/judge 'idle' has no grade of the labelled answers on the verdict scale/);
    const html = await page('/calibration?scale=verdict&judge=idle');
    expect(html.status).toBe(200);
    expect(html.text).toContain("judge &#39;idle&#39; has no grade of the labelled answers on the verdict scale");
    // A judge of judges/ that never graded (no judges row): the same on both (before, the page answered 404, the API 400).
    expect((await get('/api/reports/calibration?scale=verdict&judge=claude')).judgeReports).toEqual([]);
    expect((await page('/calibration?scale=verdict&judge=claude')).text).toContain('judge &#39;claude&#39; has no grade of the labelled answers');
    // A judge named but unknown stays a 404 on both.
    await get('/api/reports/calibration?scale=verdict&judge=nobody', 404);
    expect((await page('/calibration?scale=verdict&judge=nobody')).status).toBe(404);
  });
});
