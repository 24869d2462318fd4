import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { submitAssembly } from '../../src/services/assembly-submit.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { wilson } from '../../src/stats/wilson.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * Describe-then-solve over stored grades: the perception is the grade of the judge asked for (?judge= on
 * the API and the page, default the judge with the most answers graded ok, said on both), and an assembly
 * whose run holds several graded descriptions of its puzzle is left out and counted (ambiguous), never
 * paired with the first. Before, the page had no judge choice, and run s's assembly h1 was paired with e1
 * (the lower id) whichever of e1/e2 it followed, with no count.
 *
 * Puzzle p4 (4×4). Run r (model A): description d1, assembly g1 (perfect). Run s (model B): descriptions
 * e1, e2, assembly h1 (perfect). Run t (model C): description f1, no assembly.
 * Judge j1 graded d1 0.9, e1 0.8 (2 answers); judge j2 graded d1 0.2, e1 0.6, e2 0.3, f1 0.5 (4: the default).
 *   j2: g1–d1 (P✗, A✓); h1 has two candidates (e1, e2): ambiguous. paired 1, unpaired 1, ambiguous 1.
 *   j1: g1–d1 (P✓, A✓), h1–e1 (P✓, A✓) (e2 has no j1 grade). paired 2, unpaired 0, ambiguous 0.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

type Json = Record<string, any>;

const CSV_HEADER = [
  'scope', 'model', 'slice', 'n',
  'perception', 'perceptionLow', 'perceptionHigh', 'perceptionN',
  'answerGivenPerception', 'answerGivenPerceptionLow', 'answerGivenPerceptionHigh', 'answerGivenPerceptionN',
  'answerGivenNoPerception', 'answerGivenNoPerceptionLow', 'answerGivenNoPerceptionHigh', 'answerGivenNoPerceptionN',
  'answer', 'answerLow', 'answerHigh', 'answerN', 'identityHolds',
].join(',');

describeDb('describe-then-solve: the judge behind the perception, and ambiguous pairs', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string, accept = 'application/json') => {
    const res = await api.call(api.keys.read, 'GET', path, { headers: { accept } });
    return { status: res.status, text: await res.text() };
  };
  const json = async (path: string) => {
    const r = await get(path);
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    return JSON.parse(r.text) as Json;
  };

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    await importPuzzles(db, [{ path: 'p.jsonl', content: JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16', rubric: 'farmyard-54' }) }]);
    const rows = [
      { id: 'd1', run: 'r', model: 'A', task: 'describe', puzzle: 'p4', text: 'A farmyard.' },
      { id: 'e1', run: 's', model: 'B', task: 'describe', puzzle: 'p4', text: 'A farmyard.' },
      { id: 'e2', run: 's', model: 'B', task: 'describe', puzzle: 'p4', text: 'A barn.' },
      { id: 'f1', run: 't', model: 'C', task: 'describe', puzzle: 'p4', text: 'A farm.' },
    ];
    await importAnswersJsonl(db, { path: 'a.jsonl', content: rows.map((r) => JSON.stringify(r)).join('\n') });
    await submitAssembly(db, { run: 'r', model: 'A', puzzle: 'p4', id: 'g1', answer: truth4.layout });
    await submitAssembly(db, { run: 's', model: 'B', puzzle: 'p4', id: 'h1', answer: truth4.layout });
    for (const [slug, hash] of [['j1', 'h1'], ['j2', 'h2'], ['j3', 'h3']]) {
      await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ($1, 'anthropic', 'claude-x', '{}', $2)`, [slug, hash]);
    }
    const grade = (judge: string, run: string, answer: string, f1: number) =>
      db.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
         select a.id, (select id from judges where slug = $1), (select id from rubric_versions limit 1), 'ok', $4, '[]'::jsonb, '{}'::jsonb
           from answers a join runs r on r.id = a.run_id where r.name = $2 and a.external_id = $3`,
        [judge, run, answer, f1],
      );
    await grade('j1', 'r', 'd1', 0.9);
    await grade('j1', 's', 'e1', 0.8);
    await grade('j2', 'r', 'd1', 0.2);
    await grade('j2', 's', 'e1', 0.6);
    await grade('j2', 's', 'e2', 0.3);
    await grade('j2', 't', 'f1', 0.5);
  });

  it('API default: j2 (most answers graded ok); h1 with two graded descriptions in its run is left out and counted', async () => {
    const r = await json('/api/reports/describe-then-solve');
    expect([r.judge, r.paired, r.unpaired, r.ambiguous]).toEqual(['j2', 1, 1, 1]);
    const o = r.report.overall;
    expect([o.n, o.perception.successes, o.perception.trials, o.answer.successes, o.answerGivenNoPerception.successes, o.answerGivenNoPerception.trials]).toEqual([1, 0, 1, 1, 1, 1]);
    expect(o.answerGivenNoPerception.ci).toEqual(wilson(1, 1, 0.95).ci);
    expect(Object.keys(r.report.byModel)).toEqual(['A']);
  });

  it('API ?judge=j1: the perception is j1’s grade, and e2 (no j1 grade) is no candidate', async () => {
    const r = await json('/api/reports/describe-then-solve?judge=j1');
    expect([r.judge, r.paired, r.unpaired, r.ambiguous]).toEqual(['j1', 2, 0, 0]);
    const o = r.report.overall;
    expect([o.n, o.perception.successes, o.answerGivenPerception.successes, o.answerGivenPerception.trials]).toEqual([2, 2, 2, 2]);
    expect(o.perception.ci).toEqual(wilson(2, 2, 0.95).ci);
    expect(Object.keys(r.report.byModel).sort()).toEqual(['A', 'B']);
  });

  it('API ?run=s (j2): its one assembly ambiguous, no report, and the reason says so', async () => {
    const r = await json('/api/reports/describe-then-solve?run=s');
    expect([r.judge, r.paired, r.unpaired, r.ambiguous, r.report, r.rows]).toEqual(['j2', 0, 1, 1, null, []]);
    expect(r.reason).toBe('no scored assembly has one graded (or labelled) description of the same puzzle in its run; 1 left out as ambiguous (two or more of their puzzle in the run)');
  });

  it('API: an unknown judge is a 404 envelope naming it', async () => {
    const r = await get('/api/reports/describe-then-solve?judge=no-such-judge');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/^judge 'no-such-judge' not found/) });
  });

  it('API CSV without rows is its header line (j3 graded nothing)', async () => {
    const r = await get('/api/reports/describe-then-solve?judge=j3', 'text/csv');
    expect(r.status).toBe(200);
    expect(r.text).toBe(`${CSV_HEADER}\r\n`);
    const full = await get('/api/reports/describe-then-solve?judge=j1', 'text/csv');
    expect(full.text.split('\r\n')[0]).toBe(CSV_HEADER);
  });

  it('page: ?judge= picks the judge; the picker lists the judges with grades and says the default', async () => {
    const page = async (q: string) => {
      const r = await get(`/describe-then-solve${q}`, 'text/html');
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      return r.text;
    };
    const byDefault = await page('');
    const options = [...byDefault.matchAll(/<option value="([^"]*)"( selected="")?>([^<]*)<\/option>/g)].filter((m) => m[1] === '' || /^j\d$/.test(m[1]!));
    // Default first (the busiest judge), then each judge with ok grades, most answers first; j3 graded nothing.
    expect(options.map((m) => [m[1], m[3], Boolean(m[2])])).toEqual([
      ['', 'default: j2 (most answers graded)', true],
      ['j2', 'j2 (4 answers graded)', false],
      ['j1', 'j1 (2 answers graded)', false],
    ]);
    const text = (html: string) => html.replace(/<[^>]+>/g, '');
    expect(text(byDefault)).toContain('1 paired, 0 without a graded description, 1 left out as ambiguous');
    const j1 = await page('?judge=j1');
    expect(j1).toMatch(/<option value="j1" selected="">/);
    expect(text(j1)).toContain('2 paired, 0 without a graded description, 0 left out as ambiguous');
    expect(text(j1)).toMatch(/grades by\s*j1/);
    // A judge that graded nothing is shown selected (not the default in its place), and the report is empty.
    const j3 = await page('?judge=j3');
    expect(j3).toMatch(/<option value="j3" selected="">j3 \(no answers graded\)<\/option>/);
    expect(text(j3)).toContain('0 paired, 2 without a graded description, 0 left out as ambiguous');
  });

  it('page: an unknown judge is a 404', async () => {
    const r = await get('/describe-then-solve?judge=no-such-judge');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error.code).toBe('not_found');
  });
});
