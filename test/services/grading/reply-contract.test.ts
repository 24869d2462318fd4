import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grades } from '../../../src/db/schema.ts';
import type { Rubric } from '../../../src/domain/rubric.ts';
import { scoreDescription } from '../../../src/scoring/description/score.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../../fake-provider/server.ts';
import { verdictSet } from '../../fake-provider/wire.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer, fullVerdicts } from '../../judges/harness.ts';

/**
 * What is stored for a judge reply that parses but is not one answer for this rubric (docs/judges.md,
 * statuses): not ok with a reason and null scores, never an ok grade with verdicts the judge did not give.
 */
const quiet = { sleep: async () => {}, random: mulberry32(5) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });
type Out = { items: Array<{ id: string; verdict: string; evidence: string }>; claims: unknown[] };

/** The farmyard rubric as edited into a second version: item barn renamed barn-red (same text, weight). */
const edited: Rubric = { ...farmyard, items: farmyard.items.map((it) => (it.id === 'barn' ? { ...it, id: 'barn-red' } : it)) };
/** A complete, valid verdict set for the first version (barn correct), whatever the request asks. */
const firstVersionReply: Step = { kind: 'verdicts', output: fullVerdicts(farmyard) };

describeDb('judge replies that are not one answer for the rubric, as stored grades', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-reply-contract-'));
  const judgeFile = (id: string, model: string) =>
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: openai\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
  const panelFile = (id: string, body: string) => {
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: panel\n${body}\n`);
    return join(dir, `${id}.yaml`);
  };
  const grade = async (judge: string, rubric: Rubric, answer: { text: string; run: string } | { id: number }) => {
    const keys = keysFor(fake);
    return gradeAnswer(ctx.database, { judge: await openJudge(namedJudge(judge, keys, { from: 'local' }), keys), engine: quiet, rubric, answer });
  };

  beforeAll(async () => {
    fake = await startFakeProvider({
      models: {
        'rc-a': [verdictSet({ 'barn-red': 'correct', barn: 'correct', farmer: 'correct' }, ['true', 'true'])],
        'rc-b': [verdictSet({ 'barn-red': 'partial', barn: 'partial', farmer: 'correct' }, ['true', 'false'])],
        'rc-stale': [firstVersionReply],
      },
    });
    judgeFile('rc-a', 'rc-a');
    judgeFile('rc-b', 'rc-b');
    judgeFile('rc-stale', 'rc-stale');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two different verdict objects in one reply: stored as parse_failure with the reason, null scores, no items', async () => {
    const other = fullVerdicts() as Out;
    other.items[0]!.verdict = 'incorrect';
    fake.setScript([{ kind: 'text', text: `${JSON.stringify(fullVerdicts())}\n${JSON.stringify(other)}` }]);
    const g = await grade('gpt', farmyard, { text: farmyardAnswer, run: 'reply-contract-two' });
    expect(g).toMatchObject({ status: 'parse_failure', completeness: null, correctness: null, f1: null, items: [], claims: [] });
    expect(g.meta.reason).toBe('invalid output after one re-ask: the reply holds 2 different JSON objects; give exactly one');
    const [row] = await ctx.database.db.select().from(grades).where(eq(grades.id, g.gradeId));
    expect(row).toMatchObject({ status: 'parse_failure', completeness: null, correctness: null, f1: null, items: [] });
    expect(row!.reason).toBe(g.meta.reason);
  });

  it('a panel member answering for the previous rubric version abstains (parse_failure naming the ids); the vote is the others', async () => {
    const panel = panelFile('rc-panel', 'members: [rc-a, rc-b, rc-stale]\nquorum: 2');
    const g = await grade(panel, edited, { text: farmyardAnswer, run: 'reply-contract-panel' });
    expect(g.status).toBe('ok');
    expect(g.panel!.members.map((m) => `${m.judge} ${m.status}`)).toEqual(['rc-a ok', 'rc-b ok', 'rc-stale parse_failure']);
    // barn-red: correct vs partial, a tie to the verdict worth fewer points; farmer correct twice.
    const expected = scoreDescription(edited, { items: [{ id: 'barn-red', verdict: 'partial' }, { id: 'farmer', verdict: 'correct' }], claims: [] });
    expect(g.completeness).toBeCloseTo(expected.completeness, 12);
    expect(g.completeness).toBeCloseTo((2 * 0.5 + 2) / 21.5, 12);
    expect(g.correctness).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(g.items.find((i) => i.id === 'barn-red')).toMatchObject({ verdict: 'partial', points: 1 });
    const member = (await gradesOfAnswer(ctx.database, g.answerId)).find((s) => s.grade.judge.id === 'rc-stale')!.grade;
    expect(member).toMatchObject({ status: 'parse_failure', completeness: null, items: [] });
    expect(member.meta.reason).toBe("invalid output after one re-ask: unknown item id 'barn'; missing item 'barn-red'");
  });

  it('with that member one of two, the panel has no quorum: no_quorum naming the sample, null scores', async () => {
    const panel = panelFile('rc-pair', 'members: [rc-a, rc-stale]');
    const g = await grade(panel, edited, { text: farmyardAnswer, run: 'reply-contract-pair' });
    expect(g).toMatchObject({ status: 'no_quorum', completeness: null, correctness: null, f1: null, items: [] });
    expect(g.meta.reason).toBe('1 of 2 samples ok, quorum 2: rc-a#1 ok, rc-stale#1 parse_failure');
  });
});
