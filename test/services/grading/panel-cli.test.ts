import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { FIXTURES, runCliAsync } from '../../helpers/cli.ts';
import { seedMixedRun } from './mixed-run.ts';

/**
 * A panel file wherever the CLI takes a judge: `assay run --judge panel.yaml` (queue, in-process
 * worker), `assay grade --judge panel.yaml` (text and --json), and `--batch` refused with one line.
 * The fake runs in this process, so the CLI runs asynchronously.
 */
describe('panel judges through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-cli-'));
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  const panel = join(dir, 'c-panel.yaml');
  beforeAll(async () => {
    const v = { kind: 'verdict-set' as const, verdicts: { barn: 'correct' as const }, claims: [{ text: 'c', verdict: 'true' as const }] };
    fake = await startFakeProvider({ models: { 'gpt-4.1': [v], 'claude-sonnet-5': [v] } });
    env = { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url, OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: fake.openaiBaseUrl, DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    for (const [id, provider, model] of [['c-gpt', 'openai', 'gpt-4.1'], ['c-claude', 'anthropic', 'claude-sonnet-5']]) {
      writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
    }
    writeFileSync(panel, 'id: c-panel\nprovider: panel\nmembers: [c-gpt, c-claude]\n');
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('assay run --judge panel.yaml grades the run: panel and member grades once per answer; --batch is refused', async () => {
    const before = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    let runId = 0;
    try {
      await migrate(before);
      runId = (await seedMixedRun(before, 'panel-cli')).runId;
    } finally {
      await before.close();
    }
    const calls0 = fake.calls.length;
    const r = await runCliAsync(['run', '--run', 'panel-cli', '--judge', panel, '--concurrency', '4', '--json'], { env });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ total: 4, done: 4, failed: 0, remaining: 0, calls: 8, enqueued: { jobs: 4, alreadyGraded: 0 } });
    expect(fake.calls.length - calls0).toBe(8);

    const again = await runCliAsync(['run', '--run', 'panel-cli', '--judge', panel], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('run panel-cli, judge c-panel: 4 of 4 graded, 0 failed, 0 remaining');
    expect(fake.calls.length - calls0).toBe(8);

    const batch = await runCliAsync(['run', '--run', 'panel-cli', '--judge', panel, '--batch'], { env });
    expect(batch.code).toBe(2);
    expect(batch.stdout).toBe('');
    expect(batch.stderr.trim()).toBe('assay run: --batch grades with one judge; c-panel is a panel judge (run without --batch: its members are asked at once through the queue)');

    const after = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      const rows = await after.execute(
        `select j.slug, count(*)::int as n from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where a.run_id = $1 group by j.slug order by j.slug`,
        [runId],
      );
      expect(rows.rows.map((x) => [x.slug, Number(x.n)])).toEqual([['c-claude', 4], ['c-gpt', 4], ['c-panel', 4]]);
    } finally {
      await after.close();
    }

    // Calibrating the panel shows it against humans beside each member, and each member against the vote.
    const labels = join(dir, 'labels.jsonl');
    writeFileSync(labels, ['d1', 'd2', 'd3'].flatMap((answer) => ['ann-1', 'ann-2'].map((rater) => JSON.stringify({ answer, run: 'panel-cli', item: 'barn', rater, label: answer === 'd3' ? 'missing' : 'correct' }))).join('\n') + '\n');
    expect((await runCliAsync(['import', 'labels', labels], { env })).code).toBe(0);
    const cal = await runCliAsync(['calibrate', '--run', 'panel-cli', '--judge', 'c-panel', '--scale', 'verdict', '--json'], { env });
    expect(cal.stderr).toBe('');
    expect(cal.code).toBe(0);
    const report = cal.json();
    expect(report.judges).toEqual(['c-claude', 'c-gpt', 'c-panel']);
    expect(report.humans).toEqual(['ann-1', 'ann-2']);
    // Every judge said barn correct on all four answers; humans: correct, correct, missing on d1–d3.
    // So each of the three agrees with the human majority on 2 of the 3 labelled units, and with each other always.
    expect(report.judgeReports.map((j: { rater: string; vsMajority: { n: number; agreement: number } }) => [j.rater, j.vsMajority.n, j.vsMajority.agreement])).toEqual([
      ['c-claude', 3, 2 / 3],
      ['c-gpt', 3, 2 / 3],
      ['c-panel', 3, 2 / 3],
    ]);
    const pairs = report.judgeJudge.pairs as Record<string, { agreement: number }>;
    expect(Object.keys(pairs)).toEqual(['c-claude ~ c-gpt', 'c-claude ~ c-panel', 'c-gpt ~ c-panel']);
    for (const p of Object.values(pairs)) expect(p.agreement).toBe(1);
    // Two members that always agree: no item is unstable; 4 quorate grades × 2 ok samples per item.
    expect(report.panelInstability.find((i: { id: string }) => i.id === 'barn')).toEqual({ id: 'barn', instability: 0, samples: 8, answers: 4 });
    expect(report.panelInstability.every((i: { instability: number }) => i.instability === 0)).toBe(true);
    const text = await runCliAsync(['calibrate', '--run', 'panel-cli', '--judge', 'c-panel', '--scale', 'verdict'], { env });
    expect(text.stdout).toMatch(/\n\nPanel c-panel: item instability \(share of ok samples disagreeing with the vote, pooled over the run's quorate panel grades\)\nitem\s+instability\s+samples\s+answers\n/);
    // A plain member alone is still calibrated alone.
    const member = await runCliAsync(['calibrate', '--run', 'panel-cli', '--judge', 'c-gpt', '--scale', 'verdict', '--json'], { env });
    expect(member.code).toBe(0);
    expect(member.json().judges).toEqual(['c-gpt']);
  }, 300_000);

  it('assay grade --judge panel.yaml: the one grade shape with `panel`, and the members in the text output', async () => {
    const args = ['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', panel];
    const j = await runCliAsync([...args, '--json'], { env });
    expect(j.stderr).toBe('');
    expect(j.code).toBe(0);
    const g = j.json();
    expect(Object.keys(g)).toEqual(['gradeId', 'answerId', 'status', 'completeness', 'correctness', 'f1', 'items', 'claims', 'meta', 'usage', 'judge', 'rubric', 'createdAt', 'panel']);
    expect(g).toMatchObject({ status: 'ok', correctness: 1, judge: { id: 'c-panel', provider: 'panel', model: 'c-gpt+c-claude' }, usage: { calls: 2, cached: false } });
    expect(g.panel.members).toEqual([
      { judge: 'c-gpt', sample: 1, status: 'ok', reason: null, completeness: g.completeness, correctness: 1 },
      { judge: 'c-claude', sample: 1, status: 'ok', reason: null, completeness: g.completeness, correctness: 1 },
    ]);
    expect(g.panel.items.find((i: any) => i.id === 'barn')).toEqual({ id: 'barn', verdict: 'correct', votes: { correct: 2, partial: 0, incorrect: 0, missing: 0 }, agreement: 1 });

    const t = await runCliAsync(args, { env });
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('panel: 2 of 2 samples ok, quorum 2, vote majority, mean item agreement 1.0000');
    expect(t.stdout).toMatch(/c-claude#1\s+ok/);
    // The second grade of the same answer: every member call from the cache.
    expect(t.stdout).toContain('(cached verdict, no provider call)');
  }, 300_000);
});
