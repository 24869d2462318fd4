import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ANSWER_SCALE_KEYS } from '../../src/domain/campaigns.ts';
import type { Rubric } from '../../src/domain/rubric.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { exampleAnswers } from '../../src/services/grading/example-exclusion.ts';
import { resolveJudgeExamples } from '../../src/services/grading/judge-examples.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { loadReliability } from '../../src/services/grading/calibration-reliability.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb, openTestDatabase } from '../helpers/db.ts';
import { anchoredScript, HUMANS, JUDGE, seedAnchored, textOf } from './anchored-fixture.ts';

/**
 * Leakage: an anchored judge was shown e1 and e2 with the people's verdicts. A copy of either — the same
 * text against the same rubric, under another id or in another run (a re-import, a model that repeated
 * itself) — is the same item to the judge: grading it copies the verdicts it was shown, so it is no test
 * of the judge and must be left out of its figures like the example itself.
 */

const quiet = { sleep: async () => {}, random: mulberry32(3) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });

describeDb('anchored judges: copies of an example', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-leak-'));
  const judgeFile = (name: string, examples: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, `id: ${name}\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n${examples}`);
    return path;
  };
  let copyIds: Map<string, number>;

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    await seedAnchored(ctx.database);
    // Run `copy`: every answer of `anch` again (e2's text with trailing whitespace, as a re-export may
    // write it), plus `e1-again`, a second copy of e1 under its own id; the people's labels copied along.
    const rows = [...Object.keys(JUDGE).map((id) => ({ id, text: id === 'e2' ? `${textOf(id)}\n  ` : textOf(id) })), { id: 'e1-again', text: textOf('e1') }];
    await importAnswersJsonl(ctx.database, {
      path: 'copy.jsonl',
      content: rows.map((r) => JSON.stringify({ ...r, run: 'copy', model: 'M', task: 'describe', rubric: 'farmyard-54' })).join('\n'),
    });
    const r = await ctx.database.execute(`select a.external_id, a.id from answers a join runs r on r.id = a.run_id where r.name = 'copy'`);
    copyIds = new Map(r.rows.map((x) => [String(x.external_id), Number(x.id)]));
    for (const [answer, item, rater, label] of [...HUMANS, ...HUMANS.filter(([a]) => a === 'e1').map(([, ...rest]) => ['e1-again', ...rest] as [string, string, string, string])]) {
      await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, $3, 'human', $4)`, [copyIds.get(answer), item, rater, label]);
    }
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves copies of the example answers (same text, same rubric, another id or run) out of the judge's figures", async () => {
    const anchored = judgeFile('anchored', 'examples:\n  - { run: anch, answer: e1 }\n  - { run: anch, answer: e2 }\n');
    const plain = judgeFile('plain', '');
    for (const judge of [anchored, plain]) {
      for (const id of copyIds.values()) await gradeAnswer(ctx.database, { judge, keys: keysFor(fake), engine: quiet, answer: { id } });
    }
    const cal = await loadRunCalibration(ctx.database, { run: 'copy', judge: 'anchored' });
    // e1, e1-again and e2 of run copy are the examples' texts: three answers of the run left out.
    expect(cal.excludedExamples).toBe(3);
    expect(new Set(cal.rows.filter((r) => r.kind === 'judge').map((r) => r.answer))).toEqual(new Set(['x1', 'x2', 'x3']));
    // The people's labels stay (the human–human ceiling keeps them).
    expect(cal.rows.filter((r) => r.kind === 'human' && r.answer === 'e1-again')).toHaveLength(3);

    const cmp = await judgeCompare(ctx.database, { run: 'copy', a: 'plain', b: 'anchored', resamples: 50 });
    expect(cmp.excludedExamples).toBe(3);
    expect(cmp.answers).toBe(3);
    expect(cmp.units).toBe(6);

    // The reliability diagram: every graded item of the three copies is left out as an example's.
    const items = await ctx.database.execute(
      `select a.external_id, jsonb_array_length(g.items) as n from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id
        where r.name = 'copy' and j.slug = 'anchored' and a.external_id in ('e1', 'e1-again', 'e2')`,
    );
    expect(items.rows).toHaveLength(3);
    const rel = await loadReliability(ctx.database, { run: 'copy', judge: 'anchored' });
    expect(rel.leftOut.examples).toBe(items.rows.reduce((n, r) => n + Number(r.n), 0));
  });
});

/**
 * The judges row of an anchored judge travels with its grades in a run export (judges.json); the answer
 * ids it stores are the source database's. Imported where other answers hold those ids, the examples are
 * still the examples — found by their run and id in it — not whichever answers the ids name there.
 */
describeDb('anchored judges: a run export imported elsewhere', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-export-'));
  let target: Awaited<ReturnType<typeof openTestDatabase>>;

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    const ids = await seedAnchored(ctx.database);
    const anchored = join(dir, 'anchored.yaml');
    writeFileSync(anchored, `id: anchored\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\nexamples:\n  - { run: anch, answer: e1 }\n  - { run: anch, answer: e2 }\n`);
    for (const id of ids.values()) await gradeAnswer(ctx.database, { judge: anchored, keys: keysFor(fake), engine: quiet, answer: { id } });
    await exportRun(ctx.database, { run: 'anch', out: join(dir, 'export') });
    // The target holds another run first, so its answers have the ids e1 and e2 had at the source.
    target = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
    await importParsedRubrics(target.database, [rubric]);
    await importAnswersJsonl(target.database, {
      path: 'other.jsonl',
      content: ['o1', 'o2', 'o3', 'o4', 'o5', 'o6'].map((id) => JSON.stringify({ id, run: 'other', model: 'M', task: 'describe', rubric: rubric.id, text: `Other ${id}: a barn.` })).join('\n'),
    });
    await importRunExport(target.database, join(dir, 'export'));
  }, 60_000);
  afterAll(async () => {
    await fake.close();
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the examples out of the imported run\'s figures, and no answer of another run', async () => {
    const source = await exampleAnswers(ctx.database, { key: 'answerId', judges: ['anchored'] });
    const moved = await target.database.execute(`select a.id from answers a join runs r on r.id = a.run_id where r.name = 'other' and a.id = any($1::int[])`, [[...source.get('anchored')!].map(Number)]);
    expect(moved.rows).toHaveLength(2); // the source's example ids name answers of run other here

    const cal = await loadRunCalibration(target.database, { run: 'anch', judge: 'anchored' });
    expect(cal.excludedExamples).toBe(2);
    expect(new Set(cal.rows.filter((r) => r.kind === 'judge').map((r) => r.answer))).toEqual(new Set(['x1', 'x2', 'x3']));
    const shown = await exampleAnswers(target.database, { key: 'answerId', judges: ['anchored'] });
    const named = await target.database.execute(
      `select r.name || '/' || a.external_id as k from answers a join runs r on r.id = a.run_id where a.id = any($1::int[]) order by 1`,
      [[...(shown.get('anchored') ?? [])].map(Number)],
    );
    expect(named.rows.map((r) => r.k)).toEqual(['anch/e1', 'anch/e2']);
  });
});

/**
 * An example shows the people's verdicts of rubric items. A campaign stores whole-answer ratings beside
 * them under answer:binary and answer:numeric (domain/campaigns.ts): those are no item verdicts, so they
 * are no part of the example — before, an answer someone also rated pass/fail could not be an example.
 */
describeDb('anchored judges: whole-answer campaign ratings beside the item labels', (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-scale-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the item verdicts and leaves the whole-answer ratings out', async () => {
    const ids = await seedAnchored(ctx.database);
    for (const [key, label] of [[ANSWER_SCALE_KEYS.binary, 'true'], [ANSWER_SCALE_KEYS.numeric, '4']]) {
      await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, 'h1', 'human', $3)`, [ids.get('e2'), key, label]);
    }
    const path = join(dir, 'scaled.yaml');
    writeFileSync(path, 'id: scaled\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nexamples:\n  - { run: anch, answer: e2 }\n');
    const judge = await resolveJudgeExamples(ctx.database, loadJudge(path));
    expect(judge.examples!.map((e) => [e.externalId, e.verdicts])).toEqual([['e2', [{ item: 'barn', verdict: 'incorrect' }]]]);

    // A labels file with such rows (assay export writes them) reads the same way.
    writeFileSync(join(dir, 'rated.jsonl'), [
      { answer: 'x3', item: 'barn', rater: 'p1', kind: 'human', label: 'partial' },
      { answer: 'x3', item: ANSWER_SCALE_KEYS.binary, rater: 'p1', kind: 'human', label: 'false' },
      { answer: 'x3', item: ANSWER_SCALE_KEYS.numeric, rater: 'p1', kind: 'human', label: 2 },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(path, 'id: scaled\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nexamples:\n  - { labels: rated.jsonl, run: anch }\n');
    const fromFile = await resolveJudgeExamples(ctx.database, loadJudge(path));
    expect(fromFile.examples!.map((e) => [e.externalId, e.verdicts])).toEqual([['x3', [{ item: 'barn', verdict: 'partial' }]]]);
  });
});

/**
 * Refutations, kept as tests: the examples are resolved the same whatever order the labels were written
 * in, and a judge gaining examples under the same id is another configuration whose verdicts never come
 * from (or go to) the plain judge's cache entries.
 */
describeDb('anchored judges: determinism and the cache', (ctx) => {
  let fake: FakeProvider;
  let ids: Map<string, number>;
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-det-'));
  const file = (examples: string) => {
    const path = join(dir, 'same-id.yaml');
    writeFileSync(path, `id: same-id\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n${examples}`);
    return path;
  };
  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    ids = await seedAnchored(ctx.database);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves the same examples (and config hash) whatever order the labels were stored in', async () => {
    const examples = 'examples:\n  - { run: anch, answer: e1 }\n  - { run: anch, answer: e2 }\n';
    const before = await resolveJudgeExamples(ctx.database, loadJudge(file(examples)));
    const e1 = HUMANS.filter(([a]) => a === 'e1');
    await ctx.database.execute(`delete from labels where answer_id = $1`, [ids.get('e1')]);
    for (const [, item, rater, label] of [...e1].reverse()) {
      await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, $3, 'human', $4)`, [ids.get('e1'), item, rater, label]);
    }
    const after = await resolveJudgeExamples(ctx.database, loadJudge(file(examples)));
    expect(after.examplesText).toBe(before.examplesText);
    expect(after.configHash).toBe(before.configHash);
    // e1's barn tie (correct vs partial) goes to partial in either order.
    expect(after.examples![0]!.verdicts).toEqual([{ item: 'barn', verdict: 'partial' }, { item: 'cow-in-barn', verdict: 'incorrect' }]);
  });

  it('never serves the plain judge a verdict cached for its anchored configuration, or the reverse', async () => {
    const x1 = { id: ids.get('x1')! };
    const grade = (judge: string) => gradeAnswer(ctx.database, { judge, keys: keysFor(fake), engine: quiet, answer: x1 });
    const calls = fake.calls.length;
    await grade(file('examples:\n  - { run: anch, answer: e1 }\n'));
    await grade(file(''));
    expect(fake.calls.length - calls).toBe(2);
    // Each configuration again: both cached now, no call.
    await grade(file('examples:\n  - { run: anch, answer: e1 }\n'));
    await grade(file(''));
    expect(fake.calls.length - calls).toBe(2);
    const rows = await ctx.database.execute(`select count(*)::int as n from judges where slug = 'same-id'`);
    expect(rows.rows[0]!.n).toBe(2);
  });
});
