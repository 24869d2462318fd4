import type { Database } from '../db/client.ts';
import { groupCommit } from '../db/group-commit.ts';
import type { GridScore } from '../scoring/grid/index.ts';

/**
 * Group commit for submitted assemblies: submissions that arrive in the same event-loop turn are
 * written by one INSERT … WITH statement (answers and their scores together), so under load the
 * database commits once per batch instead of once per answer. Each answer still lands with its score
 * or not at all. An answer whose id is already taken, or any batch the database refuses, is handed
 * back (null) for the caller's one-at-a-time path, which owns the rules for those cases.
 */

export interface BatchRow {
  runId: number;
  externalId: string;
  puzzleId: number;
  text: string;
  status: 'ok' | 'no_answer';
  inputTokens: number | null;
  outputTokens: number | null;
  meta: Record<string, unknown>;
  score: GridScore;
}

const MAX_BATCH = 256;
/**
 * Statements in flight at once. While they run, new submissions queue and go out together when one
 * finishes: the busier the server, the larger the batches (classic group commit).
 */
const MAX_IN_FLIGHT = 2;

const SQL = `with input as (
    select * from jsonb_to_recordset($1::jsonb) as t(
      k int, run_id int, external_id text, puzzle_id int, text text, status text, input_tokens int, output_tokens int,
      meta jsonb, score_status text, problems jsonb, direct float8, exact_match float8, neighbour float8,
      adjacency float8, proximity float8, shape_compatibility float8, by_position jsonb)
  ),
  a as (
    insert into answers (run_id, external_id, task, puzzle_id, rubric_id, text, status, input_tokens, output_tokens, meta)
    select i.run_id, i.external_id, 'assemble', i.puzzle_id, p.rubric_id, i.text, i.status, i.input_tokens, i.output_tokens, i.meta
      from input i join puzzles p on p.id = i.puzzle_id order by i.k
    on conflict (run_id, external_id) do nothing
    returning id, run_id, external_id
  ),
  s as (
    insert into assembly_scores (answer_id, status, problems, direct, exact_match, neighbour, adjacency, proximity, shape_compatibility, by_position)
    select a.id, i.score_status, i.problems, i.direct, i.exact_match, i.neighbour, i.adjacency, i.proximity, i.shape_compatibility, i.by_position
      from a join input i on i.run_id = a.run_id and i.external_id = a.external_id
    returning answer_id
  )
  select a.id, i.k from a join input i on i.run_id = a.run_id and i.external_id = a.external_id`;

/** One statement for a batch; null for a row the caller must write one at a time. */
async function writeAll(database: Database, rows: BatchRow[]): Promise<Array<number | null>> {
  // Two submissions of one id in a batch: the first goes in, the later ones take the general path.
  const seen = new Set<string>();
  const mine: number[] = [];
  rows.forEach((r, i) => {
    const key = `${r.runId}\u0000${r.externalId}`;
    if (!seen.has(key)) (seen.add(key), mine.push(i));
  });
  const input = mine.map((i, k) => {
    const r = rows[i]!;
    return {
      k,
      run_id: r.runId,
      external_id: r.externalId,
      puzzle_id: r.puzzleId,
      text: r.text,
      status: r.status,
      input_tokens: r.inputTokens,
      output_tokens: r.outputTokens,
      meta: r.meta,
      score_status: r.score.status,
      problems: r.score.problems,
      direct: r.score.direct,
      exact_match: r.score.exactMatch,
      neighbour: r.score.neighbour,
      adjacency: r.score.adjacency,
      proximity: r.score.proximity,
      shape_compatibility: r.score.shapeCompatibility,
      by_position: r.score.byPosition,
    };
  });
  let ids = new Map<number, number>();
  try {
    const { rows: written } = await database.execute(SQL, [JSON.stringify(input)], { prepare: true });
    ids = new Map(written.map((x) => [Number(x.k), Number(x.id)]));
  } catch {
    // Refused as a whole (a taken id raced in, a bad row): every row goes the one-at-a-time way.
  }
  const out: Array<number | null> = rows.map(() => null);
  mine.forEach((i, k) => (out[i] = ids.get(k) ?? null));
  return out;
}

const writers = new WeakMap<Database, (row: BatchRow) => Promise<number | null>>();

/** The answer's new id, or null when the caller must take the one-at-a-time path. */
export function writeBatched(database: Database, row: BatchRow): Promise<number | null> {
  let w = writers.get(database);
  if (!w) writers.set(database, (w = groupCommit((rows: BatchRow[]) => writeAll(database, rows), { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT })));
  return w(row);
}
