import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { createApp } from '../../src/app.ts';
import { loadFamilies } from '../../src/judges/families.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { flagSelfPreference, type LeaderboardRow } from '../../src/services/report-leaderboard.ts';
import { leaderboard } from '../../src/services/reports.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';

/** Issue 13 §5: a leaderboard whose judge is of a graded model's family says so beside that model's F1. */

const row = (model: string, extra: Partial<LeaderboardRow> = {}): LeaderboardRow => ({
  model, sizeBucket: 'all', baseline: false, descriptions: 1, f1: 0.5, f1Low: 0.5, f1High: 0.5, assemblies: 0, noAnswer: 0, errors: 0,
  neighbour: null, neighbourLow: null, neighbourHigh: null, direct: null, directLow: null, directHigh: null,
  proximity: null, proximityLow: null, proximityHigh: null, sameFamilyAsJudge: false, ...extra,
});

it('flags rows of the judge family only: not another family, not two unknowns, not the baseline, not a model with no graded description', () => {
  const families = loadFamilies();
  const rows = [row('claude-3-5-sonnet'), row('gpt-4o'), row('my-model'), row('random baseline', { baseline: true }), row('claude-haiku', { descriptions: 0, f1: null })];
  const anthropic = flagSelfPreference(rows, 'claude-sonnet-4-5', families);
  expect(anthropic.judgeFamily).toBe('anthropic');
  expect(anthropic.rows.map((r) => r.sameFamilyAsJudge)).toEqual([true, false, false, false, false]);
  const unknown = flagSelfPreference(rows, 'house-judge-7', families);
  expect(unknown.judgeFamily).toBe('unknown');
  expect(unknown.rows.every((r) => !r.sameFamilyAsJudge)).toBe(true);
  expect(flagSelfPreference(rows, null, families)).toEqual({ judgeFamily: null, rows });
});

describeDb('leaderboard self-preference flag', (ctx) => {
  beforeAll(async () => {
    const db = ctx.database;
    const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
    await importParsedRubrics(db, [rubric]);
    const lines = [['r-claude', 'claude-3-5-sonnet'], ['r-gpt', 'gpt-4o']].map(([run, model]) =>
      JSON.stringify({ id: 'd1', run, model, task: 'describe', rubric: 'farmyard-54', text: 'A red barn.' }),
    );
    await importAnswersJsonl(db, { path: 'a.jsonl', content: lines.join('\n') });
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('sonnet', 'anthropic', 'claude-sonnet-4-5', '{}', 'h-sonnet')`);
    await db.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
       select a.id, (select id from judges where slug = 'sonnet'), (select id from rubric_versions limit 1), 'ok', 0.6, '[]'::jsonb, '{}'::jsonb from answers a`,
    );
  });

  it('marks the Claude model graded by a Claude judge, and only it', async () => {
    const lb = await leaderboard(ctx.database, { judge: 'sonnet' }, { seed: 1 });
    expect(lb.judgeFamily).toBe('anthropic');
    const flags = Object.fromEntries(lb.rows.filter((r) => r.sizeBucket === 'all').map((r) => [r.model, r.sameFamilyAsJudge]));
    expect(flags).toEqual({ 'claude-3-5-sonnet': true, 'gpt-4o': false });
  });

  it('says so on the leaderboard page beside the F1', async () => {
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} });
    const res = await app.request('http://127.0.0.1/?judge=sonnet', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    const claudeRow = html.split('<tr').find((tr) => tr.includes('claude-3-5-sonnet') && tr.includes('>all<'))!;
    expect(claudeRow).toContain('same as judge (anthropic)');
    const gptRow = html.split('<tr').find((tr) => tr.includes('gpt-4o') && tr.includes('>all<'))!;
    expect(gptRow).not.toContain('same as judge');
  });
});
