import { afterAll, expect, it } from 'vitest';
import { fillReportDatabase } from '../../bench/lib/report-db.ts';
import type { Database } from '../../src/db/client.ts';
import { chooseJudge, descriptionRows, assemblyRows, type JudgeRef, type ReportFilters } from '../../src/services/report-data.ts';
import { assemblyAnswers, assemblyFacts, descriptionAnswers, descriptionFacts, judgeGrades } from '../../src/services/report-facts.ts';
import { assemblyHalf, buildLeaderboard, descriptionHalf, joinHalves } from '../../src/services/report-leaderboard.ts';
import { leaderboard } from '../../src/services/reports.ts';
import { runInThread, stopThreads, taskModule } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * Issue 15 item 5: the report rows are read as facts (answers, a judge's newest grades, scores), each
 * cached per version of its own tables, and joined on the report thread. Here against the one query
 * per side the reports read before (kept below as the reference): the same rows, field for field, for
 * every judge and filter, through versioned grades, failed grades, answers without a puzzle or a grade.
 */

afterAll(() => stopThreads());

const REF_FILTER = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2) and ($3::text is null or rb.slug = $3)`;
const refParams = (f: ReportFilters) => [f.run ?? null, f.model ?? null, f.rubric ?? null];

async function referenceDescriptions(database: Database, f: ReportFilters, judge: JudgeRef | null) {
  const r = await database.execute(
    `select coalesce(json_agg(x order by x."answerId"), '[]')::text as rows from (
       select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
              a.status as "answerStatus", a.output_tokens as "outputTokens", a.puzzle_id as "puzzleId", a.rubric_id as "rubricId",
              coalesce(p.size_bucket, (select p2.size_bucket from puzzles p2 where p2.rubric_id = a.rubric_id order by p2.id limit 1)) as "sizeBucket",
              g.status as "gradeStatus", case when g.status = 'ok' then g.f1 end as f1,
              rv.truth->>'orientation' as "truthOrientation",
              g.meta->'orientation'->>'stated' as "statedOrientation",
              (g.meta->'orientation'->>'correct')::boolean as "orientationCorrect",
              (g.meta->'pieceCount'->>'error')::float8 as "pieceCountError"
         from answers a
         join runs r on r.id = a.run_id
         left join puzzles p on p.id = a.puzzle_id
         left join rubrics rb on rb.id = a.rubric_id
         left join lateral (
           select g.status, g.f1, g.meta, g.rubric_version_id from grades g
            where g.answer_id = a.id and g.judge_id = $4 order by g.created_at desc, g.id desc limit 1) g on true
         left join rubric_versions rv on rv.id = g.rubric_version_id
        where a.task in ('describe', 'describe-then-solve') and ${REF_FILTER}) x`,
    [...refParams(f), judge?.id ?? -1],
  );
  return JSON.parse(String(r.rows[0]!.rows));
}

async function referenceAssemblies(database: Database, f: ReportFilters) {
  const r = await database.execute(
    `select coalesce(json_agg(x order by x."answerId"), '[]')::text as rows from (
       select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
              a.status as "answerStatus", a.output_tokens as "outputTokens",
              p.id as "puzzleId", p.slug as puzzle, p.rubric_id as "puzzleRubricId", p.rows, p.cols, p.size_bucket as "sizeBucket",
              s.status as "scoreStatus", s.direct, s.neighbour, s.adjacency, s.proximity, s.exact_match as "exactMatch"
         from answers a
         join runs r on r.id = a.run_id
         join puzzles p on p.id = a.puzzle_id
         left join rubrics rb on rb.id = p.rubric_id
         left join assembly_scores s on s.answer_id = a.id
        where a.task in ('assemble', 'describe-then-solve') and ${REF_FILTER}) x`,
    refParams(f),
  );
  return JSON.parse(String(r.rows[0]!.rows));
}

const SCOPES: ReportFilters[] = [{}, { run: 'gen-gen-beta-high' }, { model: 'gen-alpha' }, { rubric: 'gen-10x10-3' }, { model: 'gen-delta', rubric: 'gen-7x7-0' }, { run: 'no-such-run' }];

describeDb('report facts', (ctx) => {
  it('give the rows of the reference queries, for every judge and scope', async () => {
    const d = ctx.database;
    await fillReportDatabase(d, 600, 5);
    // Versioned grades (the newest counts), a failed grade (no F1), an ungraded description, a description
    // without a puzzle (its rubric's puzzle gives the bucket), an unscored assembly, a second judge.
    const describes = (await d.execute(`select id from answers where task = 'describe' order by id limit 4`)).rows.map((r) => Number(r.id));
    // The newer grade is against a second rubric version, whose truth says portrait.
    const v2 = await d.execute(
      `insert into rubric_versions (rubric_id, version, title, reference, truth, content_hash)
       select rv.rubric_id, 2, rv.title, rv.reference, jsonb_set(rv.truth, '{orientation}', '"portrait"'), rv.content_hash || '-v2'
         from grades g join rubric_versions rv on rv.id = g.rubric_version_id where g.answer_id = $1 returning id`,
      [describes[0]],
    );
    await d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items, claims, meta, created_at)
       select answer_id, judge_id, $2, status, completeness, correctness, 0.125, items, claims, '{"orientation": {"stated": "portrait", "correct": true}}', created_at + interval '1 hour'
         from grades where answer_id = $1`,
      [describes[0], v2.rows[0]!.id],
    );
    await d.execute(`update grades set status = 'parse_error', f1 = null where answer_id = $1`, [describes[1]]);
    await d.execute(`delete from grades where answer_id = $1`, [describes[2]]);
    await d.execute(`update answers set puzzle_id = null where id = $1`, [describes[3]]);
    await d.execute(`delete from assembly_scores where answer_id = (select min(answer_id) from assembly_scores)`);
    await d.execute(`insert into judges (slug, provider, model, config, config_hash) values ('other', 'lexical', 'lexical', '{}', 'report-facts-other')`);
    const other = Number((await d.execute(`select id from judges where slug = 'other'`)).rows[0]!.id);
    await d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items, claims, meta)
       select answer_id, $1, rubric_version_id, status, completeness, correctness, f1 / 2, items, claims, meta from grades where answer_id % 3 = 0`,
      [other],
    );

    const judges: Array<JudgeRef | null> = [await chooseJudge(d), await chooseJudge(d, 'other'), null];
    let checked = 0;
    for (const f of SCOPES) {
      const asm = await referenceAssemblies(d, f);
      expect(await assemblyRows(d, f)).toStrictEqual(asm);
      for (const judge of judges) {
        const desc = await referenceDescriptions(d, f, judge);
        expect(await descriptionRows(d, f, judge)).toStrictEqual(desc);
        // The halves, joined, are the board of the reference rows.
        expect(joinHalves(descriptionHalf(desc, { seed: 3, resamples: 40 }), assemblyHalf(asm, { seed: 3, resamples: 40 }))).toStrictEqual(buildLeaderboard(desc, asm, { seed: 3, resamples: 40 }));
        checked += desc.length;
      }
    }
    expect(checked).toBeGreaterThan(600);
    const judge = await chooseJudge(d);
    const rows = await descriptionRows(d, {}, judge);
    expect(rows.find((r) => r.answerId === describes[0])).toMatchObject({ f1: 0.125, truthOrientation: 'portrait', statedOrientation: 'portrait', orientationCorrect: true, pieceCountError: null });
    expect(rows.find((r) => r.answerId === describes[1])).toMatchObject({ gradeStatus: 'parse_error', f1: null });
    expect(rows.find((r) => r.answerId === describes[2])).toMatchObject({ gradeStatus: null, f1: null, truthOrientation: null });
    expect(rows.find((r) => r.answerId === describes[3])!.sizeBucket).not.toBeNull();
  });

  it('the thread joins the facts into the same rows, and a regrade re-reads the grades only', async () => {
    const d = ctx.database;
    const judge = await chooseJudge(d);
    const TASKS = taskModule('report-tasks', new URL('../../src/services/report-tasks.ts', import.meta.url).href);
    const facts = { desc: await descriptionFacts(d, {}, judge), asm: await assemblyFacts(d, {}), opts: { seed: 2, resamples: 60 } };
    const reference = buildLeaderboard(await referenceDescriptions(d, {}, judge), await referenceAssemblies(d, {}), { seed: 2, resamples: 60 });
    expect(await runInThread(TASKS, 'leaderboardTask', facts)).toStrictEqual(reference);
    // Asked again (the thread keeps decoded rows under the facts' ids): the same.
    expect(await runInThread(TASKS, 'leaderboardTask', facts)).toStrictEqual(reference);

    const before = { answers: await descriptionAnswers(d, {}), grades: await judgeGrades(d, {}, judge), asm: await assemblyAnswers(d, {}) };
    const g = (await d.execute(`select id, f1 from grades where status = 'ok' and judge_id = $1 order by id limit 1`, [judge!.id])).rows[0] as { id: number; f1: number };
    await d.execute(`update grades set f1 = $1 where id = $2`, [g.f1 > 0.5 ? 0 : 1, g.id]);
    const after = { answers: await descriptionAnswers(d, {}), grades: await judgeGrades(d, {}, judge), asm: await assemblyAnswers(d, {}) };
    expect(after.answers).toBe(before.answers);
    expect(after.asm).toBe(before.asm);
    expect(after.grades.id).not.toBe(before.grades.id);
    // And the board after the regrade is the reference board over the regraded data.
    const fresh = await leaderboard(d, {}, { seed: 2, resamples: 60 });
    expect(fresh.rows).toStrictEqual(buildLeaderboard(await referenceDescriptions(d, {}, judge), await referenceAssemblies(d, {}), { seed: 2, resamples: 60 }));
  });
});
