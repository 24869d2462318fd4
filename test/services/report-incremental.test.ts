import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { loadFamilies } from '../../src/judges/families.ts';
import { calibrationLabelSet } from '../../src/services/grading/calibration-labels.ts';
import { describeThenSolveReport, storedCalibration } from '../../src/services/report-analysis.ts';
import { buildLeaderboard, flagSelfPreference, leaderboard } from '../../src/services/report-leaderboard.ts';
import { dtsTask, pageCalibrationTask } from '../../src/services/report-tasks.ts';
import type { ReportFilters } from '../../src/services/report-data.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';
import { fillKnownDatabase, type KnownIds } from './report-known-fixture.ts';

/**
 * The cached and incremental report paths (report-cache.ts versions, report-facts.ts parts, the report
 * thread's kept rows, remembered intervals) against a from-scratch computation after every write of a
 * random sequence (grade, regrade, failed grade, label, score, delete answer): the same numbers, always.
 * The scratch side reads the rows with one plain query per side (a lateral join for the newest grade),
 * chooses the judge itself and calls the pure builders directly — no cache anywhere.
 */

afterAll(() => stopThreads());

const F = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2) and ($3::text is null or rb.slug = $3)`;
const params = (f: ReportFilters) => [f.run ?? null, f.model ?? null, f.rubric ?? null];

async function scratchJudge(d: Database, slug?: string) {
  const r = await d.execute(
    `select j.id, j.slug, j.model, (select count(distinct g.answer_id) from grades g where g.judge_id = j.id and g.status = 'ok')::int as n
       from judges j where ($1::text is null or j.slug = $1) order by n desc, j.id desc limit 1`,
    [slug ?? null],
  );
  const row = r.rows[0];
  return row ? { id: Number(row.id), slug: String(row.slug), model: String(row.model) } : null;
}

async function scratchDescriptions(d: Database, f: ReportFilters, judgeId: number) {
  const r = await d.execute(
    `select coalesce(json_agg(x order by x."answerId"), '[]')::text as rows from (
       select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
              a.status as "answerStatus", a.output_tokens as "outputTokens", a.puzzle_id as "puzzleId", a.rubric_id as "rubricId",
              coalesce(p.size_bucket, (select p2.size_bucket from puzzles p2 where p2.rubric_id = a.rubric_id order by p2.id limit 1)) as "sizeBucket",
              g.status as "gradeStatus", case when g.status = 'ok' then g.f1 end as f1,
              rv.truth->>'orientation' as "truthOrientation", g.meta->'orientation'->>'stated' as "statedOrientation",
              (g.meta->'orientation'->>'correct')::boolean as "orientationCorrect", (g.meta->'pieceCount'->>'error')::float8 as "pieceCountError"
         from answers a join runs r on r.id = a.run_id left join puzzles p on p.id = a.puzzle_id left join rubrics rb on rb.id = a.rubric_id
         left join lateral (select g.status, g.f1, g.meta, g.rubric_version_id from grades g where g.answer_id = a.id and g.judge_id = $4
                             order by g.created_at desc, g.id desc limit 1) g on true
         left join rubric_versions rv on rv.id = g.rubric_version_id
        where a.task in ('describe', 'describe-then-solve') and ${F}) x`,
    [...params(f), judgeId],
  );
  return String(r.rows[0]!.rows);
}

async function scratchAssemblies(d: Database, f: ReportFilters) {
  const r = await d.execute(
    `select coalesce(json_agg(x order by x."answerId"), '[]')::text as rows from (
       select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
              a.status as "answerStatus", a.output_tokens as "outputTokens", p.id as "puzzleId", p.slug as puzzle, p.rubric_id as "puzzleRubricId",
              p.rows, p.cols, p.size_bucket as "sizeBucket", s.status as "scoreStatus", s.direct, s.neighbour, s.adjacency, s.proximity, s.exact_match as "exactMatch"
         from answers a join runs r on r.id = a.run_id join puzzles p on p.id = a.puzzle_id left join rubrics rb on rb.id = p.rubric_id
         left join assembly_scores s on s.answer_id = a.id
        where a.task in ('assemble', 'describe-then-solve') and ${F}) x`,
    params(f),
  );
  return String(r.rows[0]!.rows);
}

/** Every table of the fixture emptied, then the fixture written again (the caches see only writes). */
async function refill(d: Database): Promise<KnownIds> {
  for (const t of ['labels', 'assembly_scores', 'grades', 'answers', 'runs', 'puzzles', 'rubric_items', 'rubric_versions', 'rubrics', 'judges']) await d.execute(`delete from ${t}`);
  return fillKnownDatabase(d);
}

type Write =
  | { kind: 'grade'; pick: number; judge: 'j1' | 'j2'; v2: boolean; ok: boolean; f1: number }
  | { kind: 'label'; pick: number; item: 'i1' | 'i2' | '' | 'answer:binary'; annotator: 'h1' | 'h2' | 'h3'; verdict: string }
  | { kind: 'score'; pick: number; neighbour: number }
  | { kind: 'delete'; pick: number };
type Step = { write: Write; check: 'leaderboard' | 'dts' | 'dts-label' | 'calibration' | 'none'; filter: number };

const FILTERS: ReportFilters[] = [{}, { model: 'm1' }, { rubric: 'rb' }, { model: 'm2', rubric: 'ra' }, { judge: 'j2' }];
const f1s = fc.constantFrom(0, 0.25, 0.4, 0.5, 0.75, 1);
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('grade' as const), pick: fc.nat(100), judge: fc.constantFrom('j1' as const, 'j2' as const), v2: fc.boolean(), ok: fc.boolean(), f1: f1s }),
  fc.record({ kind: fc.constant('label' as const), pick: fc.nat(100), item: fc.constantFrom('i1' as const, 'i2' as const), annotator: fc.constantFrom('h1' as const, 'h2' as const), verdict: fc.constantFrom('correct', 'partial', 'incorrect', 'missing') }),
  // Whole-answer pass/fail labels (describe-then-solve's perception 'label'), under either key of one person.
  fc.record({ kind: fc.constant('label' as const), pick: fc.nat(100), item: fc.constantFrom('' as const, 'answer:binary' as const), annotator: fc.constantFrom('h1' as const, 'h2' as const, 'h3' as const), verdict: fc.constantFrom('pass', 'fail', 'yes', 'no') }),
  fc.record({ kind: fc.constant('score' as const), pick: fc.nat(100), neighbour: f1s }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(100) }),
);
const step: fc.Arbitrary<Step> = fc.record({
  write,
  check: fc.constantFrom('leaderboard' as const, 'dts' as const, 'dts-label' as const, 'calibration' as const, 'none' as const),
  filter: fc.nat(FILTERS.length - 1),
});

/** Human whole-answer labels of the description answers in scope, each person's newest first (what the report reads). */
async function scratchLabels(d: Database, f: ReportFilters): Promise<Array<[number, string, string]>> {
  const r = await d.execute(
    `select l.answer_id as "answerId", l.annotator, l.label from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
      where l.kind = 'human' and l.item_key in ('', 'answer:binary') and a.task in ('describe', 'describe-then-solve')
        and ($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)
      order by l.answer_id, l.annotator, l.created_at desc, l.id desc`,
    [f.run ?? null, f.model ?? null],
  );
  return r.rows.map((x) => [Number(x.answerId), String(x.annotator), String(x.label)]);
}

async function apply(d: Database, ids: KnownIds, w: Write): Promise<void> {
  const tasks = w.kind === 'score' ? `('assemble', 'describe-then-solve')` : w.kind === 'delete' ? `('describe', 'describe-then-solve', 'assemble')` : `('describe', 'describe-then-solve')`;
  const rows = (await d.execute(`select id, rubric_id from answers where task in ${tasks} order by id`)).rows;
  if (rows.length === 0) return;
  const a = rows[w.pick % rows.length]!;
  const answerId = Number(a.id);
  if (w.kind === 'delete') await d.execute(`delete from answers where id = $1`, [answerId]);
  else if (w.kind === 'label') {
    await d.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, $3, 'human', $4)
       on conflict (answer_id, item_key, annotator, campaign_id) do update set label = excluded.label, created_at = now()`,
      [answerId, w.item, w.annotator, w.verdict],
    );
  } else if (w.kind === 'score') {
    await d.execute(
      `insert into assembly_scores (answer_id, status, direct, exact_match, neighbour, adjacency, proximity, by_position) values ($1, 'valid', $2, 0, $2, $2, $2, '{}')
       on conflict (answer_id) do update set neighbour = excluded.neighbour, direct = excluded.direct, proximity = excluded.proximity`,
      [answerId, w.neighbour],
    );
  } else {
    const version = Number(a.rubric_id) === ids.rubric.ra ? (w.v2 ? ids.version.ra2 : ids.version.ra1) : ids.version.rb1;
    const items = JSON.stringify([{ id: 'i1', verdict: w.f1 >= 0.5 ? 'correct' : 'incorrect' }, { id: 'i2', verdict: w.f1 > 0.5 ? 'partial' : 'missing' }]);
    // A regrade with the same configuration and rubric version replaces the grade in place (docs/grades.md).
    await d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, reason, f1, items, claims, meta)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, '[]', '{}')
       on conflict (answer_id, judge_id, rubric_version_id) do update set status = excluded.status, reason = excluded.reason, f1 = excluded.f1, items = excluded.items, created_at = now()`,
      [answerId, ids.judge[w.judge], version, w.ok ? 'ok' : 'provider_error', w.ok ? null : 'failed', w.ok ? w.f1 : null, w.ok ? items : null],
    );
  }
}

async function expectSame(d: Database, check: Step['check'], f: ReportFilters): Promise<void> {
  if (check === 'none') return;
  const judge = await scratchJudge(d, f.judge);
  const desc = judge ? await scratchDescriptions(d, f, judge.id) : await scratchDescriptions(d, f, -1);
  const asm = await scratchAssemblies(d, f);
  if (check === 'leaderboard') {
    const cached = await leaderboard(d, f);
    const rows = buildLeaderboard(JSON.parse(desc), JSON.parse(asm), { seed: 1 });
    expect(cached.judge).toBe(judge?.slug ?? null);
    expect(cached.rows).toEqual(flagSelfPreference(rows, judge ? judge.model : null, loadFamilies()).rows);
  } else if (check === 'dts' || check === 'dts-label') {
    const perception = check === 'dts' ? ('f1' as const) : ('label' as const);
    const cached = await describeThenSolveReport(d, { ...f, perception });
    const labels = perception === 'label' ? await scratchLabels(d, f) : [];
    const scratch = dtsTask({ desc, asm, labels, perception, metric: 'neighbour', perceptionThreshold: 0.5, answerThreshold: 0.5 });
    expect([cached.paired, cached.unpaired, cached.report]).toEqual([scratch.paired, scratch.unpaired, scratch.report]);
  } else {
    const q = { key: 'answerId' as const, scale: 'verdict' as const, humanLabelledOnly: true, judge: 'j1', ...(f.model ? { model: f.model } : {}), ...(f.rubric ? { rubric: f.rubric } : {}) };
    const cached = await storedCalibration(d, { ...f, judge: 'j1', scale: 'verdict' });
    const scratch = pageCalibrationTask({ rows: (await calibrationLabelSet(d, q)).rows, scale: 'verdict', judge: 'j1', seed: 1 });
    expect(cached.report === null).toBe(scratch.report === null);
    if (scratch.report) {
      const { notes: _a, ...c } = cached.report!;
      const { notes: _b, ...s } = scratch.report;
      expect(c).toEqual(s);
    }
  }
}

describeDb('cached report paths after random writes', (ctx) => {
  it('give the numbers of a from-scratch computation after every write', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const d = ctx.database;
        const ids = await refill(d);
        // Warm every cache first, so each later check reads through the incremental paths.
        for (const check of ['leaderboard', 'dts', 'dts-label', 'calibration'] as const) await expectSame(d, check, {});
        for (const s of steps) {
          await apply(d, ids, s.write);
          await expectSame(d, s.check, FILTERS[s.filter]!);
        }
        for (const check of ['leaderboard', 'dts', 'dts-label', 'calibration'] as const) await expectSame(d, check, {});
      }),
      // Fewer sequences on PostgreSQL (ctx.url set), where each write and report is a network round trip;
      // six on PGlite keep CI on a 2-core machine within its time (each sequence is up to ten writes and checks).
      { seed: 20261202, numRuns: ctx.url ? 2 : 6 },
    );
  });
});
