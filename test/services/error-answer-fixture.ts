import type { Database } from '../../src/db/client.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';

/**
 * Rows an old database (before 6bf3f2c) or an import may hold for answers whose model call failed (status
 * error): a grade, and an assembly score stored for the leftover text (0 for none). Inserted as rows, not
 * through the services, so the fixture stands whatever the services now store. Run ea-run, model ea-m:
 *   d1 describe ok     grade of judge ea-judge: r = c = f1 0.8, no claims
 *   d2 describe error  grade r = c = f1 0.2 (no claims), stored before grading skipped error answers
 *   g1 assemble ok     'a b\nc d' on puzzle ea-p (2×2): stored score valid, every metric 1
 *   g2 assemble error  ''                                stored score invalid, every metric 0
 */
export interface ErrorAnswerIds {
  d1: number;
  d2: number;
  g1: number;
  g2: number;
}

const one = async (d: Database, sql: string, params: unknown[] = []): Promise<number> => Number((await d.execute(`${sql} returning id`, params)).rows[0]!.id);

export async function seedErrorAnswers(d: Database): Promise<ErrorAnswerIds> {
  await importPuzzles(d, [{ path: 'p.jsonl', content: '{"id":"ea-p","rows":2,"cols":2,"layout":[["a","b"],["c","d"]]}\n' }]);
  const puzzle = Number((await d.execute(`select id from puzzles where slug = 'ea-p'`)).rows[0]!.id);
  const rubric = await one(d, `insert into rubrics (slug, title) values ('ea-r', 'EA')`);
  const version = await one(d, `insert into rubric_versions (rubric_id, version, title, reference, content_hash) values ($1, 1, 'EA', 'ea', 'ea-r1')`, [rubric]);
  const judge = await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('ea-judge', 'anthropic', 'claude-test', '{}', 'ea-judge')`);
  const run = await one(d, `insert into runs (name, model) values ('ea-run', 'ea-m')`);
  const answer = (ext: string, task: string, status: string, text: string, p: number | null, r: number | null) =>
    one(d, `insert into answers (run_id, external_id, task, puzzle_id, rubric_id, text, status) values ($1, $2, $3, $4, $5, $6, $7)`, [run, ext, task, p, r, text, status]);
  const ids = {
    d1: await answer('d1', 'describe', 'ok', 'A red barn.', null, rubric),
    d2: await answer('d2', 'describe', 'error', 'I will zoom in first: a red', null, rubric),
    g1: await answer('g1', 'assemble', 'ok', 'a b\nc d', puzzle, null),
    g2: await answer('g2', 'assemble', 'error', '', puzzle, null),
  };
  for (const [a, f1] of [[ids.d1, 0.8], [ids.d2, 0.2]] as const) {
    await d.execute(`insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items) values ($1, $2, $3, 'ok', $4, $4, $4, '[]')`, [a, judge, version, f1]);
  }
  for (const [a, status, v] of [[ids.g1, 'valid', 1], [ids.g2, 'invalid', 0]] as const) {
    await d.execute(
      `insert into assembly_scores (answer_id, status, problems, direct, exact_match, neighbour, adjacency, proximity, shape_compatibility, by_position)
       values ($1, $2, '[]', $3, $3, $3, $3, $3, $3, $4::jsonb)`,
      [a, status, v, JSON.stringify({ corner: v, edge: null, interior: null })],
    );
  }
  return ids;
}

/** One describe answer with status error (its leftover `text`) added to run `run`, on the database's first rubric. */
export async function addErrorDescription(d: Database, run: string, externalId: string, text: string): Promise<number> {
  return one(
    d,
    `insert into answers (run_id, external_id, task, rubric_id, text, status)
     select r.id, $2, 'describe', (select id from rubrics order by id limit 1), $3, 'error' from runs r where r.name = $1`,
    [run, externalId, text],
  );
}
