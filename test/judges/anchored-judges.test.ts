import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { canonicalJson, loadJudge, sha256 } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { loadJudgeOrPanel } from '../../src/judges/panel-config.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { exampleAnswers } from '../../src/services/grading/example-exclusion.ts';
import { resolveJudgeExamples } from '../../src/services/grading/judge-examples.ts';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { anchoredScript, blocks, seedAnchored } from './anchored-fixture.ts';

/**
 * Anchored judges (docs/judges.md): `examples:` resolved from the database into the static block of the
 * prompt (identical for every answer), folded into the config hash, and left out of the judge's own
 * calibration — the kappa below is worked by hand without the two example answers.
 */

const quiet = { sleep: async () => {}, random: mulberry32(3) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });

describeDb('anchored judges', (ctx) => {
  let fake: FakeProvider;
  let ids: Map<string, number>;
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-'));
  const judgeFile = (name: string, examples: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, `id: ${name}\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n${examples}`);
    return path;
  };
  let anchored: string;

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    ids = await seedAnchored(ctx.database);
    anchored = judgeFile('anchored', `examples:\n  - { run: anch, answer: e1 }\n  - { answer: ${ids.get('e2')} }\n`);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the examples with the people\'s verdicts in the cached static block, the same for every answer', async () => {
    const before = fake.calls.length;
    for (const id of ['x1', 'x2']) await gradeAnswer(ctx.database, { judge: anchored, keys: keysFor(fake), engine: quiet, answer: { id: ids.get(id)! } });
    const [a, b] = fake.calls.slice(before);
    expect(fake.calls.length - before).toBe(2);
    const [staticA, answerA] = blocks(a!);
    const [staticB, answerB] = blocks(b!);
    expect(staticA!.cache_control).toEqual({ type: 'ephemeral' });
    expect(staticA!.text).toBe(staticB!.text);
    expect(a!.body.system).toEqual(b!.body.system);
    expect(answerA!.text).not.toBe(answerB!.text);
    const s = staticA!.text;
    // After the rubric block, in listed order, each with its verdicts (e1's barn tie → partial).
    expect(s.indexOf('Rubric items (id, weight')).toBeLessThan(s.indexOf('Example 1 of 2, against rubric farmyard-54: Farmyard'));
    expect(s.indexOf('Example 1 of 2')).toBeLessThan(s.indexOf('Example 2 of 2'));
    expect(s).toContain('Description e1: a red barn with ‹b›bold‹/b› claims.');
    expect(s).toContain('Description e2: a red barn on the left.');
    expect(s).toContain('- barn (weight 2: A large red barn with white trim stands on the left, doors open.): partial\n- cow-in-barn (weight 1: A brown cow looks out of the open barn doors.): incorrect');
    expect(s).toContain('Verdicts people gave it (item, weight and what the item says: verdict):\n- barn (weight 2: A large red barn with white trim stands on the left, doors open.): incorrect');
    // Items nobody labelled are not shown as verdicts.
    expect(s.slice(s.indexOf('Example 1 of 2'))).not.toContain('- farmer (weight');
    // The examples are never in the answer block.
    expect(answerA!.text).not.toContain('Description e1');
  });

  it('folds the examples into the config hash: other examples or verdicts are another judge config', async () => {
    const plain = loadJudge(judgeFile('plain', ''));
    expect(plain.configHash).toBe(sha256(canonicalJson(plain.config)));
    expect(await resolveJudgeExamples(ctx.database, plain)).toBe(plain);

    const one = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('h', 'examples:\n  - { run: anch, answer: e2 }\n')));
    const again = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('h', 'examples:\n  - { run: anch, answer: e2 }\n')));
    const other = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('h', 'examples:\n  - { run: anch, answer: x3 }\n')));
    expect(again.configHash).toBe(one.configHash);
    expect(other.configHash).not.toBe(one.configHash);
    expect(one.examples!.map((e) => [e.externalId, e.verdicts])).toEqual([['e2', [{ item: 'barn', verdict: 'incorrect' }]]]);

    // A new human label turns e2's barn into a tie (incorrect vs correct → incorrect, as before): same hash;
    // a second one makes correct the majority: the verdict changes, and so does the hash.
    await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, 'barn', 'h2', 'human', 'correct')`, [ids.get('e2')]);
    expect((await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('h', 'examples:\n  - { run: anch, answer: e2 }\n')))).configHash).toBe(one.configHash);
    await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, 'barn', 'h3', 'human', 'correct')`, [ids.get('e2')]);
    const relabelled = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('h', 'examples:\n  - { run: anch, answer: e2 }\n')));
    expect(relabelled.examples![0]!.verdicts).toEqual([{ item: 'barn', verdict: 'correct' }]);
    expect(relabelled.configHash).not.toBe(one.configHash);
    await ctx.database.execute(`delete from labels where answer_id = $1 and annotator in ('h2', 'h3')`, [ids.get('e2')]);

    // An engine built from the bare file (examples never read) is refused rather than grading without them.
    expect(() => createJudgeEngine({ judge: loadJudge(anchored), adapter: { provider: 'anthropic', model: 'm', baseline: false, call: async () => ({}) as never }, cache: new MemoryCache(), ledger: new MemoryLedger() })).toThrow(
      /judge anchored lists examples, which are read from the database/,
    );
  });

  it('leaves the example answers out of the judge\'s calibration and of judge compare, and says how many', async () => {
    for (const id of ['e1', 'e2', 'x3']) await gradeAnswer(ctx.database, { judge: anchored, keys: keysFor(fake), engine: quiet, answer: { id: ids.get(id)! } });
    const cal = await loadRunCalibration(ctx.database, { run: 'anch', judge: 'anchored' });
    expect(cal.excludedExamples).toBe(2);
    expect(new Set(cal.rows.filter((r) => r.kind === 'judge').map((r) => r.answer))).toEqual(new Set(['x1', 'x2', 'x3']));
    expect(cal.rows.filter((r) => r.kind === 'human' && r.answer === 'e1')).toHaveLength(3);
    const report = calibrate(cal.rows, { scale: 'verdict', judge: 'anchored' });
    // By hand, over x1–x3 (6 units): agreement 4/6; humans correct 2, missing 2, partial 1, incorrect 1;
    // judge correct 4, missing 1, incorrect 1 → p_e = (2·4 + 2·1 + 1·1)/36 = 11/36, κ = (24/36 − 11/36)/(25/36) = 13/25.
    const vs = report.judgeReports[0]!.vsMajority;
    expect(vs.n).toBe(6);
    expect(vs.agreement).toBeCloseTo(4 / 6, 12);
    expect(vs.kappa!.kappa).toBeCloseTo(13 / 25, 12);

    // The stored judges row records what the judge was shown.
    const row = await ctx.database.execute(`select config->'resolvedExamples' as e from judges where slug = 'anchored'`);
    expect((row.rows[0]!.e as Array<{ answer: string }>).map((e) => e.answer)).toEqual(['e1', 'e2']);

    // Judge compare against a judge without examples: e1 and e2 are left out of both sides.
    const plainFile = judgeFile('plain-judge', '');
    for (const id of ['e1', 'e2', 'x1', 'x2', 'x3']) await gradeAnswer(ctx.database, { judge: plainFile, keys: keysFor(fake), engine: quiet, answer: { id: ids.get(id)! } });
    const cmp = await judgeCompare(ctx.database, { run: 'anch', a: 'plain-judge', b: 'anchored', resamples: 50 });
    expect(cmp.excludedExamples).toBe(2);
    expect(cmp.answers).toBe(3);
    expect(cmp.units).toBe(6);

    // A panel with the anchored judge as a member: the member's examples are in the panel's hash, and the
    // panel's figures leave them out too (its judges row names the member's config hash).
    const panelFile = join(dir, 'p-anch.yaml');
    writeFileSync(panelFile, 'id: p-anch\nprovider: panel\nmembers: [anchored]\n');
    const bare = loadJudgeOrPanel(panelFile);
    const resolved = await resolveJudgeExamples(ctx.database, bare);
    expect(resolved.configHash).not.toBe(bare.configHash);
    await gradeAnswer(ctx.database, { judge: panelFile, keys: keysFor(fake), engine: quiet, answer: { id: ids.get('x1')! } });
    const shown = await exampleAnswers(ctx.database, { key: 'externalId', run: 'anch', judges: ['p-anch', 'plain-judge'] });
    expect([...shown.entries()].map(([j, set]) => [j, [...set]])).toEqual([['p-anch', ['e1', 'e2']]]);
  });

  it.each([
    ['an unknown answer', 'examples:\n  - { run: anch, answer: nope }\n', "judge bad: examples[0]: run 'anch' has no answer 'nope'"],
    ['an unknown database id', 'examples:\n  - { answer: 999999 }\n', 'judge bad: examples[0]: unknown answer: no answer with database id 999999'],
    ['an unknown run', 'examples:\n  - { run: nowhere, answer: a1 }\n', "judge bad: examples[0]: unknown answer: no run 'nowhere'"],
    ['an answer without labels', 'examples:\n  - { run: anch, answer: x2 }\n  - { run: anch, answer: e1 }\n', ''],
  ])('refuses %s as bad input', async (_, examples, message) => {
    const file = judgeFile('bad', examples);
    if (message === '') {
      await ctx.database.execute(`delete from labels where answer_id = $1`, [ids.get('x2')]);
      message = 'judge bad: examples[0]: answer x2 of run anch: has no human item labels (label it first, e.g. on its annotation page, or give a labels file)';
    }
    const before = (await ctx.database.execute(`select count(*)::int as n from judges`)).rows[0]!.n;
    await expect(gradeAnswer(ctx.database, { judge: file, keys: keysFor(fake), engine: quiet, answer: { id: ids.get('x1')! } })).rejects.toMatchObject({ code: 'bad_input', message });
    expect((await ctx.database.execute(`select count(*)::int as n from judges`)).rows[0]!.n).toBe(before);
  });

  it('takes examples from a labels file (its human rows) and names the line of a bad one', async () => {
    const labels = join(dir, 'anchors.jsonl');
    writeFileSync(labels, [
      { answer: 'x3', item: 'barn', rater: 'p1', kind: 'human', label: 'Partial' },
      { answer: 'x3', item: 'barn', rater: 'j', kind: 'judge', label: 'correct' },
      { answer: 'x1', item: 'cow-in-barn', rater: 'p1', kind: 'human', label: 'missing' },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const j = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('from-file', `examples:\n  - { labels: anchors.jsonl, run: anch }\n`)));
    expect(j.examples!.map((e) => [e.externalId, e.verdicts])).toEqual([
      ['x3', [{ item: 'barn', verdict: 'partial' }]],
      ['x1', [{ item: 'cow-in-barn', verdict: 'missing' }]],
    ]);
    const picked = await resolveJudgeExamples(ctx.database, loadJudge(judgeFile('from-file', `examples:\n  - { labels: anchors.jsonl, run: anch, answers: [x1] }\n`)));
    expect(picked.examples!.map((e) => e.externalId)).toEqual(['x1']);

    writeFileSync(join(dir, 'broken.jsonl'), `${JSON.stringify({ answer: 'x3', item: 'barn', rater: 'p1', kind: 'human', label: 'correct' })}\n{"answer": "x1", "item": \n`);
    await expect(resolveJudgeExamples(ctx.database, loadJudge(judgeFile('from-file', 'examples:\n  - { labels: broken.jsonl, run: anch }\n')))).rejects.toThrow(
      `judge from-file: examples[0]: labels ${join(dir, 'broken.jsonl')}: line 2: not valid JSON`,
    );
    writeFileSync(join(dir, 'wrong.jsonl'), `${JSON.stringify({ answer: 'x3', item: 'barn', rater: 'p1', kind: 'human', label: 'yes' })}\n`);
    await expect(resolveJudgeExamples(ctx.database, loadJudge(judgeFile('from-file', 'examples:\n  - { labels: wrong.jsonl, run: anch }\n')))).rejects.toThrow(
      `judge from-file: examples[0]: labels ${join(dir, 'wrong.jsonl')}: line 1: "yes" is not a verdict (expected correct|partial|incorrect|missing)`,
    );
    await expect(resolveJudgeExamples(ctx.database, loadJudge(judgeFile('from-file', 'examples:\n  - { labels: absent.jsonl, run: anch }\n')))).rejects.toThrow(`judge from-file: examples[0]: labels ${join(dir, 'absent.jsonl')}: no such file`);
  });
});
