import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadJudge } from '../../../src/judges/config.ts';
import { loadPanel } from '../../../src/judges/panel-config.ts';
import { type Judge, type JudgeReply, ProviderCallError } from '../../../src/judges/types.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { openGradingSession } from '../../../src/services/grading/panel-session.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * A member's own grade beside the panel's (docs/panels.md, What is stored): sample 1 of a member is stored
 * as that member's grade of the answer. A member grade already stored final is the member's answer: a
 * panel whose call for that member failed has no better one to put in its place.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-panel-members-'));
const judgeYaml = (id: string) => `id: ${id}\nprovider: openai\nmodel: gpt-4.1\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 1 }\n`;
writeFileSync(join(dir, 'mg-a.yaml'), judgeYaml('mg-a'));
writeFileSync(join(dir, 'mg-b.yaml'), judgeYaml('mg-b'));
writeFileSync(join(dir, 'mg-panel.yaml'), 'id: mg-panel\nprovider: panel\nmembers: [mg-a, mg-b]\nquorum: 1\n');
writeFileSync(join(dir, 'mg-c.yaml'), judgeYaml('mg-c'));
writeFileSync(join(dir, 'mg-twice.yaml'), 'id: mg-twice\nprovider: panel\nmembers: [mg-a, mg-b, mg-c]\nsamples: 2\nquorum: 3\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [a, b] = farmyard.items.map((i) => i.id) as [string, string];
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
/** An adapter that answers every request with these verdicts (other items missing), or fails every call. */
const scripted = (verdicts: Record<string, string> | 'down'): Judge => ({
  provider: 'openai',
  model: 'gpt-4.1',
  baseline: false,
  async call(req): Promise<JudgeReply> {
    if (verdicts === 'down') throw new ProviderCallError('fatal', 'HTTP 500 from the provider');
    const items = req.rubric.items.map((it) => ({ id: it.id, verdict: verdicts[it.id] ?? 'missing', evidence: '' }));
    return { structured: { items, claims: [{ text: 'a barn', verdict: 'true' }] }, text: '', stop: 'complete', usage };
  },
});
const engine = { sleep: async () => {}, random: mulberry32(5) };

describeDb('a panel and its members’ stored grades', (ctx) => {
  it('a member’s final grade is not replaced by the provider_error of its panel sample (before: the ok grade was lost)', async () => {
    // The member graded alone, and no cache entry of that call (batch grading writes none; an entry under older reply rules is a miss).
    const alone = await openGradingSession(ctx.database, { judge: loadJudge(join(dir, 'mg-a.yaml')), adapter: scripted({ [a]: 'correct', [b]: 'partial' }), engine });
    const own = await alone.grade({ rubric: farmyard, answer: { text: farmyardAnswer, run: 'members' } });
    expect(own).toMatchObject({ status: 'ok', judge: { id: 'mg-a' } });
    await ctx.database.execute('delete from judge_cache');

    const adapters: Record<string, Judge> = { 'mg-a': scripted('down'), 'mg-b': scripted({ [a]: 'correct' }) };
    const panel = await openGradingSession(ctx.database, { judge: loadPanel(join(dir, 'mg-panel.yaml')), adapterFor: async (j) => adapters[j.config.id]!, engine });
    const g = await panel.grade({ answer: { id: own.answerId } });
    expect(g.status).toBe('ok');
    expect(g.panel!.members.map((m) => `${m.judge}#${m.sample} ${m.status}`)).toEqual(['mg-a#1 provider_error', 'mg-b#1 ok']);

    const stored = await gradesOfAnswer(ctx.database, own.answerId);
    const member = stored.find((s) => s.grade.judge.id === 'mg-a')!.grade;
    expect(member).toMatchObject({ status: 'ok', completeness: own.completeness, correctness: own.correctness });
    expect(member.items.find((i) => i.id === b)).toMatchObject({ verdict: 'partial' });
    expect(stored.find((s) => s.grade.judge.id === 'mg-b')!.grade).toMatchObject({ status: 'ok' });
  });

  it('nor by a parse failure of it: an ok grade of the member outlives any failed call for the panel', async () => {
    const alone = await openGradingSession(ctx.database, { judge: loadJudge(join(dir, 'mg-a.yaml')), adapter: scripted({ [a]: 'partial' }), engine });
    const own = await alone.grade({ rubric: farmyard, answer: { text: `${farmyardAnswer} (garbled)`, run: 'members' } });
    await ctx.database.execute('delete from judge_cache');
    const garbled: Judge = { ...scripted({}), call: async () => ({ text: 'It looks mostly right to me.', stop: 'complete', usage }) };
    const adapters: Record<string, Judge> = { 'mg-a': garbled, 'mg-b': scripted({ [a]: 'correct' }) };
    const panel = await openGradingSession(ctx.database, { judge: loadPanel(join(dir, 'mg-panel.yaml')), adapterFor: async (j) => adapters[j.config.id]!, engine });
    const g = await panel.grade({ answer: { id: own.answerId } });
    expect(g.panel!.members.map((m) => `${m.judge}#${m.sample} ${m.status}`)).toEqual(['mg-a#1 parse_failure', 'mg-b#1 ok']);
    const member = (await gradesOfAnswer(ctx.database, own.answerId)).find((s) => s.grade.judge.id === 'mg-a')!.grade;
    expect(member).toMatchObject({ status: 'ok', completeness: own.completeness });
    expect(member.items.find((i) => i.id === a)).toMatchObject({ verdict: 'partial' });
  });

  it('a failed sample is a status with its reason in the panel report, stored and returned (before: the status alone; a sample 2 failure’s reason was kept nowhere)', async () => {
    // mg-a answers, mg-b garbles every reply, mg-c's provider is down.
    const garbled: Judge = { ...scripted({}), call: async () => ({ text: 'It looks mostly right to me.', stop: 'complete', usage }) };
    const adapters: Record<string, Judge> = { 'mg-a': scripted({ [a]: 'correct' }), 'mg-b': garbled, 'mg-c': scripted('down') };
    const panel = await openGradingSession(ctx.database, { judge: loadPanel(join(dir, 'mg-twice.yaml')), adapterFor: async (j) => adapters[j.config.id]!, engine });
    const g = await panel.grade({ rubric: farmyard, answer: { text: `${farmyardAnswer} (reasons)`, run: 'members' } });
    expect(g.status).toBe('no_quorum');
    const members = g.panel!.members.map((m) => [`${m.judge}#${m.sample}`, m.status, m.reason]);
    expect(members).toEqual([
      ['mg-a#1', 'ok', null],
      ['mg-a#2', 'ok', null],
      ['mg-b#1', 'parse_failure', expect.stringMatching(/^invalid output after one re-ask: /)],
      ['mg-b#2', 'parse_failure', expect.stringMatching(/^invalid output after one re-ask: /)],
      ['mg-c#1', 'provider_error', 'HTTP 500 from the provider'],
      ['mg-c#2', 'provider_error', 'HTTP 500 from the provider'],
    ]);
    const stored = (await gradesOfAnswer(ctx.database, g.answerId)).find((s) => s.grade.judge.id === 'mg-twice')!.grade;
    expect(stored.panel!.members.map((m) => [`${m.judge}#${m.sample}`, m.status, m.reason])).toEqual(members);
  });
});
