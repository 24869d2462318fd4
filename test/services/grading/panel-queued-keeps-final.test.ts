import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadJudge } from '../../../src/judges/config.ts';
import { loadPanel } from '../../../src/judges/panel-config.ts';
import { type Judge, type JudgeReply, ProviderCallError } from '../../../src/judges/types.ts';
import { openGradingSession } from '../../../src/services/grading/panel-session.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * A panel's queued grade (a worker's job) whose every sample failed does not replace the panel grade
 * another grader stored for the answer while its calls were out (a live `assay grade` with the panel):
 * the job read 'not graded yet' before its calls, and its retryable no_quorum, written after them, used to
 * overwrite the ok panel grade in place, so the answer lost its verdicts and counted as failed. The keep is
 * decided inside the upsert, as for a single judge's queued grade (queued-keeps-final.test.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-panel-keep-'));
const judgeYaml = (id: string) => `id: ${id}\nprovider: openai\nmodel: gpt-4.1\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 1 }\n`;
for (const id of ['pk-a', 'pk-b', 'pk-other']) writeFileSync(join(dir, `${id}.yaml`), judgeYaml(id));
writeFileSync(join(dir, 'pk-panel.yaml'), 'id: pk-panel\nprovider: panel\nmembers: [pk-a, pk-b]\nquorum: 1\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
const answering = (): Judge => ({
  provider: 'openai',
  model: 'gpt-4.1',
  baseline: false,
  async call(req): Promise<JudgeReply> {
    const items = req.rubric.items.map((it) => ({ id: it.id, verdict: 'correct', evidence: '' }));
    return { structured: { items, claims: [] }, text: '', stop: 'complete', usage };
  },
});
const engine = { sleep: async () => {}, random: mulberry32(7) };
const panelFile = () => loadPanel(join(dir, 'pk-panel.yaml'));

describeDb('a failed queued panel grade keeps a final panel grade written during its calls', (ctx) => {
  it('the ok panel grade stored meanwhile stays; the job reads already graded', async () => {
    // The answer, stored with its rubric by a judge outside the panel: the panel has no grade of it yet.
    const other = await openGradingSession(ctx.database, { judge: loadJudge(join(dir, 'pk-other.yaml')), adapter: answering(), engine });
    const { answerId } = await other.grade({ rubric: farmyard, answer: { text: farmyardAnswer, run: 'panel-keep' } });
    await ctx.database.execute('delete from judge_cache');

    const live = await openGradingSession(ctx.database, { judge: panelFile(), adapterFor: async () => answering(), engine });
    let liveGrade: Awaited<ReturnType<typeof live.grade>> | null = null;
    const down = (first: boolean): Judge => ({
      ...answering(),
      async call() {
        // While this sample's call is out, the panel grades the answer live (ok); then every call fails.
        if (first && liveGrade === null) liveGrade = await live.grade({ answer: { id: answerId } });
        throw new ProviderCallError('fatal', 'HTTP 500 from the provider');
      },
    });
    const queued = await openGradingSession(ctx.database, { judge: panelFile(), adapterFor: async (j) => down(j.config.id === 'pk-a'), engine });
    expect(await queued.gradeQueued(answerId)).toBe('already graded');
    expect(liveGrade!.status).toBe('ok');

    const rows = (await ctx.database.execute(`select g.status, g.completeness, g.items from grades g join judges j on j.id = g.judge_id where g.answer_id = $1 and j.slug = 'pk-panel'`, [answerId])).rows;
    expect(rows.map((r) => r.status)).toEqual(['ok']);
    expect(Number(rows[0]!.completeness)).toBe(1);
    expect((rows[0]!.items as unknown[]).length).toBe(farmyard.items.length);
  });

  it('with no final panel grade stored, the failure is written (and retried by the queue)', async () => {
    const other = await openGradingSession(ctx.database, { judge: loadJudge(join(dir, 'pk-other.yaml')), adapter: answering(), engine });
    const { answerId } = await other.grade({ rubric: farmyard, answer: { text: `${farmyardAnswer} again`, run: 'panel-keep' } });
    await ctx.database.execute('delete from judge_cache');
    const failing: Judge = { ...answering(), call: async () => { throw new ProviderCallError('fatal', 'HTTP 500 from the provider'); } };
    const queued = await openGradingSession(ctx.database, { judge: panelFile(), adapterFor: async () => failing, engine });
    const g = await queued.gradeQueued(answerId);
    expect(typeof g === 'string' ? g : g.status).toBe('no_quorum');
  });
});
