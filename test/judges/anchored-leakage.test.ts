import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { loadReliability } from '../../src/services/grading/calibration-reliability.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
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
