import { expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/import-answers.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { describeThenSolveReport } from '../../src/services/report-analysis.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { parseRubric } from '../../src/scoring/description/rubric.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * A `describe-then-solve` answer is a description and an assembly in one text: the judge grades it, and
 * its grid is scored as an assemble answer's is (docs/http-api.md: the stored report pairs such an
 * assembly with the same answer's description). Before, `assay import answers` scored assemble answers
 * only, so a describe-then-solve answer never had an assembly score: the describe-then-solve report left
 * it out without counting it (neither paired nor unpaired), the leaderboard counted no assembly for it,
 * and a run of such answers had no report at all, exit 0.
 */

const rubric = parseRubric({ id: 'r-dts', title: 'R', reference: 'x and y', items: [{ id: 'x', weight: 1, text: 'An x.' }, { id: 'y', weight: 1, text: 'A y.' }] }, 'rubric');
const row = (id: string, text: string) => JSON.stringify({ id, run: 'dts-run', model: 'm', task: 'describe-then-solve', puzzle: 'p-dts', text });

describeDb('describe-then-solve answers are scored at import', (ctx) => {
  it('the grid of each describe-then-solve answer is scored, and the report pairs it with its own description', async () => {
    await importParsedRubrics(ctx.database, [rubric]);
    await importPuzzles(ctx.database, [{ path: 'p.json', content: JSON.stringify({ id: 'p-dts', rows: 2, cols: 2, layout: [['a', 'b'], ['c', 'd']], rubric: 'r-dts' }) }]);
    const r = await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: `${row('solved', 'An x and a y.\n\na b\nc d')}\n${row('unsolved', 'An x only.\n\nd c\nb a')}\n` });
    expect(r.scored).toBe(2);
    const scores = await ctx.database.execute(`select a.external_id as id, s.status, s.neighbour from assembly_scores s join answers a on a.id = s.answer_id order by a.external_id`);
    // 'unsolved' is the grid turned half round: no piece keeps a neighbour on its side.
    expect(scores.rows.map((x) => [x.id, x.status, Number(x.neighbour)])).toEqual([['solved', 'valid', 1], ['unsolved', 'valid', 0]]);

    // Both descriptions graded (by hand, as a judge would store them): F1 1 and 0.
    const judge = Number((await ctx.database.execute(`insert into judges (slug, provider, model, config, config_hash) values ('jd', 'replay', 'r', '{}', 'jd-h') returning id`)).rows[0]!.id);
    const version = Number((await ctx.database.execute(`select v.id from rubric_versions v join rubrics r on r.id = v.rubric_id where r.slug = 'r-dts'`)).rows[0]!.id);
    for (const [id, f1] of [['solved', 1], ['unsolved', 0]] as const) {
      await ctx.database.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items, claims)
         select a.id, $2, $3, 'ok', $4, $4, $4, '[]', '[]' from answers a where a.external_id = $1`,
        [id, judge, version, f1],
      );
    }
    const report = await describeThenSolveReport(ctx.database, { judge: 'jd' });
    expect([report.paired, report.unpaired]).toEqual([2, 0]);
    const g = report.report!.overall;
    expect([g.n, g.perception.successes, g.answerGivenPerception.successes, g.answerGivenPerception.trials, g.answerGivenNoPerception.successes, g.answerGivenNoPerception.trials])
      .toEqual([2, 1, 1, 1, 0, 1]);
  }, 60_000);
});
