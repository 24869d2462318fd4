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
 * GET /api/reports/describe-then-solve with a blank threshold (`?threshold=`, as a cleared form field
 * sends it). docs/reports.md: an empty value means "not given" — the default τ = 0.5, as the page reads
 * it. Before, the API coerced '' to 0, so every description with F1 ≥ 0 counted as perceived right.
 * One pair: model A described with F1 0.4 (below 0.5) and assembled the 4×4 puzzle perfectly.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

type Json = Record<string, any>;

describeDb('describe-then-solve API: a blank threshold is the default', (ctx) => {
  const api = useApi(ctx);
  const call = (path: string) => api.call(api.keys.read, 'GET', path);

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    await importPuzzles(db, [{ path: 'p.jsonl', content: JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16', rubric: 'farmyard-54' }) }]);
    await importAnswersJsonl(db, { path: 'a.jsonl', content: JSON.stringify({ id: 'd1', run: 'r', model: 'A', task: 'describe', puzzle: 'p4', text: 'A farmyard.' }) });
    await submitAssembly(db, { run: 'r', model: 'A', puzzle: 'p4', id: 'g1', answer: truth4.layout });
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('lex', 'lexical', 'lexical', '{}', 'h1')`);
    await db.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
       select a.id, (select id from judges where slug = 'lex'), (select id from rubric_versions limit 1), 'ok', 0.4, '[]'::jsonb, '{}'::jsonb
         from answers a where a.external_id = 'd1'`,
    );
  });

  it('?threshold= reads as the default 0.5, not as 0', async () => {
    const res = await call('/api/reports/describe-then-solve?threshold=');
    expect(res.status).toBe(200);
    const r = (await res.json()) as Json;
    expect(r.report.thresholds).toEqual({ perception: 0.5, answer: 0.5 });
    expect(r.report.overall.perception.successes).toBe(0);
  });

  it('a threshold of spaces is blank too (the page trims it)', async () => {
    const r = (await (await call('/api/reports/describe-then-solve?threshold=%20%20')).json()) as Json;
    expect(r.report.thresholds).toEqual({ perception: 0.5, answer: 0.5 });
  });

  it('a blank perceptionThreshold or answerThreshold falls back to threshold', async () => {
    const r = (await (await call('/api/reports/describe-then-solve?threshold=0.3&perceptionThreshold=&answerThreshold=')).json()) as Json;
    expect(r.report.thresholds).toEqual({ perception: 0.3, answer: 0.3 });
    expect(r.report.overall.perception.successes).toBe(1);
  });

  it('and the page, given the same blank value, shows the same τ', async () => {
    const res = await api.call(api.keys.read, 'GET', '/describe-then-solve?threshold=', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('description F1 ≥ 0.5');
  });

  it('the page says what the unpaired assemblies lack: a graded description (F1) or a human-labelled one (label)', async () => {
    const page = async (q: string) => (await api.call(api.keys.read, 'GET', `/describe-then-solve${q}`, { headers: { accept: 'text/html' } })).text();
    expect(await page('')).toContain('1 paired, 0 without a graded description');
    // The description is graded but nobody labelled it: by label the one assembly is unpaired for want of a label.
    expect(await page('?perception=label')).toContain('0 paired, 1 without a human-labelled description');
  });
});
