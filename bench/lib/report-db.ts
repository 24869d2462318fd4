// A generated report workload: N answers over 4 models × 4 puzzle size buckets (~50, ~100, ~200, ~500),
// half descriptions graded by a lexical judge row, half assemblies with stored scores, and human item
// labels on the first descriptions of every run (so calibration has work). Written with plain SQL in
// batches (the import services would take minutes for 10,000 answers); every value comes from a seeded
// generator, so two runs build the same database.
import type { Database } from '../../src/db/client.ts';
import { mulberry32 } from '../../src/stats/random.ts';

const BUCKETS = [
  { bucket: '~50', side: 7 },
  { bucket: '~100', side: 10 },
  { bucket: '~200', side: 14 },
  { bucket: '~500', side: 22 },
] as const;
const MODELS = ['gen-alpha', 'gen-beta', 'gen-gamma', 'gen-delta'] as const;
const PUZZLES_PER_BUCKET = 10;
const ITEMS = 10;
const VERDICTS = ['correct', 'partial', 'incorrect', 'missing'] as const;
const POINTS: Record<string, number> = { correct: 1, partial: 0.5, incorrect: 0, missing: 0 };
const LABELLED_PER_RUN = 40;

const lit = (v: unknown): string => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `'${s.replace(/'/g, "''")}'`;
};

async function insert(database: Database, table: string, columns: string[], rows: unknown[][], returning = ''): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500).map((r) => `(${r.map(lit).join(', ')})`);
    const r = await database.execute(`insert into ${table} (${columns.join(', ')}) values ${chunk.join(',\n')} ${returning}`);
    out.push(...r.rows);
  }
  return out;
}

export interface GeneratedReportData {
  answers: number;
  descriptions: number;
  assemblies: number;
  labels: number;
}

/** Adds `total` generated answers (a multiple of 8 runs × 2 tasks is not needed: the rest is spread). */
export async function fillReportDatabase(database: Database, total = 10_000, seed = 42): Promise<GeneratedReportData> {
  const rng = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

  // Rubrics (one per puzzle) with versions and items, then the puzzles.
  const puzzles: Array<{ id: number; rubricId: number; versionId: number; bucket: string; side: number; orientation: string }> = [];
  for (const b of BUCKETS) {
    for (let p = 0; p < PUZZLES_PER_BUCKET; p++) {
      const slug = `gen-${b.side}x${b.side}-${p}`;
      const orientation = p % 2 ? 'portrait' : 'landscape';
      const [rubric] = await insert(database, 'rubrics', ['slug', 'title'], [[slug, `generated ${slug}`]], 'returning id');
      const truth = { orientation, grid: { rows: b.side, cols: b.side }, pieces: b.side * b.side };
      const [version] = await insert(
        database,
        'rubric_versions',
        ['rubric_id', 'version', 'title', 'reference', 'truth', 'content_hash'],
        [[rubric.id, 1, `generated ${slug}`, `A generated picture ${slug}.`, truth, `gen-${slug}`]],
        'returning id',
      );
      await insert(
        database,
        'rubric_items',
        ['rubric_version_id', 'item_key', 'text', 'weight', 'position'],
        Array.from({ length: ITEMS }, (_, i) => [version.id, `item-${i}`, `object ${i}`, 1 + (i % 3), i]),
      );
      const layout = Array.from({ length: b.side }, (_, r) => Array.from({ length: b.side }, (_, c) => `p${r * b.side + c}`));
      const [puzzle] = await insert(database, 'puzzles', ['slug', 'rows', 'cols', 'layout', 'size_bucket', 'rubric_id'], [[slug, b.side, b.side, layout, b.bucket, rubric.id]], 'returning id');
      puzzles.push({ id: puzzle.id, rubricId: rubric.id, versionId: version.id, bucket: b.bucket, side: b.side, orientation });
    }
  }
  const [judge] = await insert(database, 'judges', ['slug', 'provider', 'model', 'config', 'config_hash'], [['lexical', 'lexical', 'lexical', {}, `bench-lexical-${seed}`]], 'on conflict (config_hash) do update set slug = excluded.slug returning id');

  // 8 runs: each model at two efforts, the high-effort run tagged.
  const runs: Array<{ id: number; model: string; skill: number }> = [];
  for (const [m, model] of MODELS.entries()) {
    for (const effort of ['low', 'high']) {
      const [run] = await insert(database, 'runs', ['name', 'model', 'effort', 'tags'], [[`gen-${model}-${effort}`, model, effort, effort === 'high' ? ['tagged'] : []]], 'returning id');
      runs.push({ id: run.id, model, skill: 0.35 + 0.12 * m + (effort === 'high' ? 0.05 : 0) });
    }
  }

  const answerRows: unknown[][] = [];
  const planned: Array<{ run: (typeof runs)[number]; puzzle: (typeof puzzles)[number]; task: 'describe' | 'assemble'; external: string }> = [];
  for (let i = 0; i < total; i++) {
    const run = runs[i % runs.length]!;
    const k = Math.floor(i / runs.length);
    const puzzle = puzzles[k % puzzles.length]!;
    // Alternate blocks of every puzzle, so each run describes and assembles the same puzzles (describe-then-solve pairs).
    const task = Math.floor(k / puzzles.length) % 2 === 0 ? 'describe' : 'assemble';
    const external = `g${k}`;
    planned.push({ run, puzzle, task, external });
    const status = rng() < 0.02 ? 'no_answer' : 'ok';
    answerRows.push([run.id, external, task, puzzle.id, task === 'describe' ? puzzle.rubricId : null, status === 'ok' ? `generated answer ${i}` : null, status, 800, Math.floor(200 + rng() * 3000)]);
  }
  const ids = await insert(database, 'answers', ['run_id', 'external_id', 'task', 'puzzle_id', 'rubric_id', 'text', 'status', 'input_tokens', 'output_tokens'], answerRows, 'returning id');

  const gradeRows: unknown[][] = [];
  const scoreRows: unknown[][] = [];
  const labelRows: unknown[][] = [];
  const labelledPerRun = new Map<number, number>();
  planned.forEach((p, i) => {
    const answerId = ids[i].id as number;
    const skill = Math.max(0.05, p.run.skill - 0.04 * BUCKETS.findIndex((b) => b.bucket === p.puzzle.bucket));
    if (p.task === 'describe') {
      const items = Array.from({ length: ITEMS }, (_, j) => {
        const u = rng();
        const verdict = u < skill ? 'correct' : u < skill + 0.15 ? 'partial' : pick(VERDICTS.slice(2));
        return { id: `item-${j}`, weight: 1 + (j % 3), verdict, points: POINTS[verdict]! };
      });
      const w = items.reduce((s, it) => s + it.weight, 0);
      const completeness = items.reduce((s, it) => s + it.weight * it.points, 0) / w;
      const correctness = Math.min(1, skill + 0.2 * rng());
      const f1 = completeness + correctness === 0 ? 0 : (2 * completeness * correctness) / (completeness + correctness);
      const stated = rng() < 0.1 ? null : rng() < skill + 0.3 ? p.puzzle.orientation : p.puzzle.orientation === 'portrait' ? 'landscape' : 'portrait';
      const pieces = p.puzzle.side * p.puzzle.side;
      const meta = {
        orientation: { stated, correct: stated === p.puzzle.orientation },
        pieceCount: rng() < 0.3 ? { stated: null, error: null } : { stated: pieces, error: Math.abs(Math.round((rng() - 0.5) * pieces * (1 - skill))) / pieces },
      };
      gradeRows.push([answerId, judge.id, p.puzzle.versionId, 'ok', completeness, correctness, f1, items, [], meta]);
      const n = labelledPerRun.get(p.run.id) ?? 0;
      if (n < LABELLED_PER_RUN) {
        labelledPerRun.set(p.run.id, n + 1);
        for (const annotator of ['annotator-1', 'annotator-2']) {
          for (const it of items) labelRows.push([answerId, it.id, annotator, 'human', rng() < 0.8 ? it.verdict : pick(VERDICTS)]);
        }
      }
    } else {
      const direct = Math.min(1, Math.max(0, skill + (rng() - 0.5) * 0.4));
      const neighbour = Math.min(1, Math.max(0, direct * 0.9 + rng() * 0.1));
      const proximity = Math.min(1, direct * 1.1 - 0.1 + rng() * 0.1);
      scoreRows.push([answerId, 'valid', direct, direct === 1 ? 1 : 0, neighbour, Math.min(1, neighbour + 0.1), proximity, { corner: direct, edge: direct, interior: direct }]);
    }
  });
  await insert(database, 'grades', ['answer_id', 'judge_id', 'rubric_version_id', 'status', 'completeness', 'correctness', 'f1', 'items', 'claims', 'meta'], gradeRows);
  await insert(database, 'assembly_scores', ['answer_id', 'status', 'direct', 'exact_match', 'neighbour', 'adjacency', 'proximity', 'by_position'], scoreRows);
  await insert(database, 'labels', ['answer_id', 'item_key', 'annotator', 'kind', 'label'], labelRows);
  return { answers: total, descriptions: gradeRows.length, assemblies: scoreRows.length, labels: labelRows.length };
}
