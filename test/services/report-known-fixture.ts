import type { Database } from '../../src/db/client.ts';

/**
 * A small hand-made report database whose figures are known by hand (test/services/report-known.test.ts).
 * Every row is written with plain SQL, with explicit times where the order of two grades matters.
 *
 * Rubrics ra (versions 1 and 2, same item wording) and rb; puzzles pa (2×2, bucket ~4, rubric ra) and pb
 * (3×3, bucket ~9, rubric rb); judges j1 (the busiest) and j2; runs run-m1 (model m1, effort low) and
 * run-m2 (model m2, effort high).
 */

export interface KnownIds {
  judge: Record<'j1' | 'j2', number>;
  version: Record<'ra1' | 'ra2' | 'rb1', number>;
  puzzle: Record<'pa' | 'pb', number>;
  rubric: Record<'ra' | 'rb', number>;
  run: Record<'m1' | 'm2', number>;
  answer: Record<string, number>;
}

const one = async (d: Database, sql: string, params: unknown[] = []): Promise<number> => Number((await d.execute(`${sql} returning id`, params)).rows[0]!.id);

const ITEMS = (verdicts: [string, string]) => JSON.stringify([
  { id: 'i1', weight: 2, verdict: verdicts[0], points: 0 },
  { id: 'i2', weight: 1, verdict: verdicts[1], points: 0 },
]);

export async function fillKnownDatabase(d: Database): Promise<KnownIds> {
  const rubric = {
    ra: await one(d, `insert into rubrics (slug, title) values ('ra', 'A')`),
    rb: await one(d, `insert into rubrics (slug, title) values ('rb', 'B')`),
  };
  const version = {
    ra1: await one(d, `insert into rubric_versions (rubric_id, version, title, reference, truth, content_hash) values ($1, 1, 'A', 'a', '{"orientation":"landscape"}', 'ra1')`, [rubric.ra]),
    ra2: await one(d, `insert into rubric_versions (rubric_id, version, title, reference, truth, content_hash) values ($1, 2, 'A', 'a2', '{"orientation":"landscape"}', 'ra2')`, [rubric.ra]),
    rb1: await one(d, `insert into rubric_versions (rubric_id, version, title, reference, truth, content_hash) values ($1, 1, 'B', 'b', '{"orientation":"portrait"}', 'rb1')`, [rubric.rb]),
  };
  for (const v of Object.values(version)) {
    await d.execute(`insert into rubric_items (rubric_version_id, item_key, text, weight, position) values ($1, 'i1', 'a barn', 2, 0), ($1, 'i2', 'a cow', 1, 1)`, [v]);
  }
  const puzzle = {
    pa: await one(d, `insert into puzzles (slug, rows, cols, layout, size_bucket, rubric_id) values ('pa', 2, 2, '[["a","b"],["c","d"]]', '~4', $1)`, [rubric.ra]),
    pb: await one(d, `insert into puzzles (slug, rows, cols, layout, size_bucket, rubric_id) values ('pb', 3, 3, '[["a","b","c"],["d","e","f"],["g","h","i"]]', '~9', $1)`, [rubric.rb]),
  };
  const judge = {
    j1: await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('j1', 'anthropic', 'claude-test', '{}', 'known-j1')`),
    j2: await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('j2', 'openai', 'gpt-test', '{}', 'known-j2')`),
  };
  const run = {
    m1: await one(d, `insert into runs (name, model, effort) values ('run-m1', 'm1', 'low')`),
    m2: await one(d, `insert into runs (name, model, effort) values ('run-m2', 'm2', 'high')`),
  };
  const answer: Record<string, number> = {};
  const add = async (name: string, runId: number, task: string, puzzleId: number | null, rubricId: number | null, status = 'ok', tokens = 100) => {
    answer[name] = await one(
      d,
      `insert into answers (run_id, external_id, task, puzzle_id, rubric_id, text, status, output_tokens) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [runId, name, task, puzzleId, rubricId, status === 'ok' ? `text of ${name}` : null, status, tokens],
    );
  };
  // Descriptions of model m1.
  await add('d1', run.m1, 'describe', puzzle.pa, rubric.ra, 'ok', 100);
  await add('d2', run.m1, 'describe', puzzle.pa, rubric.ra, 'ok', 200);
  await add('d3', run.m1, 'describe', puzzle.pb, rubric.rb, 'ok', 300);
  await add('d4', run.m1, 'describe', puzzle.pb, rubric.rb, 'no_answer', 0);
  await add('d5', run.m1, 'describe', puzzle.pb, rubric.rb, 'ok', 500);
  await add('d6', run.m1, 'describe', puzzle.pa, rubric.ra, 'ok', 600);
  // Descriptions of model m2, and one describe-then-solve answer (a description and an assembly in one).
  await add('e1', run.m2, 'describe', puzzle.pa, rubric.ra, 'ok', 1000);
  await add('e2', run.m2, 'describe', puzzle.pb, rubric.rb, 'ok', 2000);
  await add('u1', run.m2, 'describe-then-solve', puzzle.pb, rubric.rb, 'ok', 3000);
  // Assemblies.
  await add('s1', run.m1, 'assemble', puzzle.pa, null, 'ok', 10);
  await add('s2', run.m1, 'assemble', puzzle.pa, null, 'ok', 20);
  await add('s3', run.m1, 'assemble', puzzle.pb, null, 'ok', 30);
  await add('t1', run.m2, 'assemble', puzzle.pa, null, 'ok', 40);

  const grade = async (a: string, j: number, v: number, status: string, f1: number | null, at: string, verdicts: [string, string] = ['correct', 'partial'], orientation: string | null = null) =>
    d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, reason, completeness, correctness, f1, items, claims, meta, created_at)
       values ($1, $2, $3, $4, $5, $6, $6, $7, $8::jsonb, '[]', $9::jsonb, $10)`,
      [
        answer[a],
        j,
        v,
        status,
        status === 'ok' ? null : 'provider said no',
        status === 'ok' ? f1 : null,
        status === 'ok' ? f1 : null,
        status === 'ok' ? ITEMS(verdicts) : null,
        JSON.stringify(orientation === null ? {} : { orientation: { stated: orientation, correct: orientation === 'landscape' } }),
        at,
      ],
    );
  const T1 = '2026-01-01T00:00:00Z';
  const T2 = '2026-01-02T00:00:00Z';
  await grade('d1', judge.j1, version.ra1, 'ok', 0.8, T1, ['correct', 'partial'], 'landscape');
  // d2: regraded under version 2; only the newer grade (0.6) counts.
  await grade('d2', judge.j1, version.ra1, 'ok', 0.2, T1, ['incorrect', 'missing'], 'portrait');
  await grade('d2', judge.j1, version.ra2, 'ok', 0.6, T2, ['correct', 'missing'], 'landscape');
  // d3: the judge failed (a status with a reason): never a 0.
  await grade('d3', judge.j1, version.rb1, 'provider_error', null, T1);
  // d4: no grade at all. d5: one ok grade.
  await grade('d5', judge.j1, version.rb1, 'ok', 0.4, T1, ['correct', 'correct'], null);
  // d6: an ok grade, then a failed regrade under version 2: the newest grade is the failure, so not graded.
  await grade('d6', judge.j1, version.ra1, 'ok', 0.9, T1, ['incorrect', 'correct']);
  await grade('d6', judge.j1, version.ra2, 'provider_error', null, T2);
  await grade('e1', judge.j1, version.ra1, 'ok', 1.0, T1);
  await grade('e1', judge.j2, version.ra1, 'ok', 0.0, T1);
  await grade('e2', judge.j1, version.rb1, 'ok', 0.5, T1);
  await grade('u1', judge.j1, version.rb1, 'ok', 0.3, T1);

  const score = (a: string, status: string, direct: number, neighbour: number, proximity: number, adjacency = neighbour) =>
    d.execute(
      `insert into assembly_scores (answer_id, status, direct, exact_match, neighbour, adjacency, proximity, by_position) values ($1, $2, $3, $4, $5, $6, $7, '{}')`,
      [answer[a], status, direct, direct === 1 ? 1 : 0, neighbour, adjacency, proximity],
    );
  await score('s1', 'valid', 0.25, 0.5, 0.1);
  // s2 unscored. s3 invalid: every metric 0, and counted as 0 (design §2.2).
  await score('s3', 'invalid', 0, 0, 0);
  await score('t1', 'valid', 1, 1, 1);
  await score('u1', 'valid', 0.5, 0.9, 0.4);

  // Human item labels (verdict scale).
  const label = (a: string, item: string, annotator: string, value: string) =>
    d.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, $3, 'human', $4)`, [answer[a], item, annotator, value]);
  await label('d1', 'i1', 'h1', 'correct');
  await label('d1', 'i2', 'h1', 'partial');
  await label('d1', 'i1', 'h2', 'correct');
  await label('d1', 'i2', 'h2', 'missing');
  await label('d2', 'i1', 'h1', 'correct');
  await label('d3', 'i1', 'h1', 'correct');
  await label('d6', 'i1', 'h1', 'correct');
  return { judge, version, puzzle, rubric, run, answer };
}
