import type { RunExport } from './read-run.ts';

/**
 * The tables of a run export, one spec each: the columns in order with their Parquet type, and how a
 * row is read from the stored run. JSONL and Parquet are written from the same rows, so a Parquet file
 * read back is the JSONL file (answers.jsonl leaves out null fields instead, being the import format of
 * `assay import answers`). Nested values (tags, meta, items, claims) are Parquet JSON columns.
 */

export type ColumnType = 'STRING' | 'DOUBLE' | 'INT32' | 'BOOLEAN' | 'JSON';
export type Row = Record<string, unknown>;
export interface TableSpec {
  name: string;
  columns: ReadonlyArray<readonly [string, ColumnType]>;
  rows(x: RunExport): Row[];
  /** Leave null fields out of the JSONL (the answers import format is strict about them). */
  omitNulls?: boolean;
}

export const TABLES: readonly TableSpec[] = [
  {
    name: 'answers',
    omitNulls: true,
    columns: [['id', 'STRING'], ['run', 'STRING'], ['model', 'STRING'], ['effort', 'STRING'], ['tags', 'JSON'], ['task', 'STRING'], ['puzzle', 'STRING'], ['rubric', 'STRING'], ['text', 'STRING'], ['status', 'STRING'], ['input_tokens', 'INT32'], ['output_tokens', 'INT32'], ['meta', 'JSON']],
    rows: (x) =>
      x.answers.map((a) => ({ id: a.externalId, run: x.run.name, model: x.run.model, effort: x.run.effort, tags: x.run.tags, task: a.task, puzzle: a.puzzle, rubric: a.rubric, text: a.text, status: a.status, input_tokens: a.inputTokens, output_tokens: a.outputTokens, meta: a.meta })),
  },
  {
    name: 'grades',
    columns: [
      ['answer', 'STRING'], ['judge', 'STRING'], ['judge_config_hash', 'STRING'], ['rubric', 'STRING'], ['rubric_version', 'INT32'], ['prompt_hash', 'STRING'], ['status', 'STRING'], ['reason', 'STRING'],
      ['completeness', 'DOUBLE'], ['correctness', 'DOUBLE'], ['f1', 'DOUBLE'], ['items', 'JSON'], ['claims', 'JSON'], ['meta', 'JSON'], ['raw_output', 'STRING'],
      ['input_tokens', 'INT32'], ['output_tokens', 'INT32'], ['cache_read_tokens', 'INT32'], ['cache_write_tokens', 'INT32'], ['cost_usd', 'DOUBLE'], ['latency_ms', 'INT32'], ['created_at', 'STRING'],
    ],
    rows: (x) =>
      x.grades.map((g) => ({
        answer: g.answer, judge: g.judge, judge_config_hash: g.judgeHash, rubric: g.rubric, rubric_version: g.rubricVersion, prompt_hash: g.promptHash, status: g.status, reason: g.reason,
        completeness: g.completeness, correctness: g.correctness, f1: g.f1, items: g.items, claims: g.claims, meta: g.meta, raw_output: g.rawOutput,
        input_tokens: g.inputTokens, output_tokens: g.outputTokens, cache_read_tokens: g.cacheReadTokens, cache_write_tokens: g.cacheWriteTokens, cost_usd: g.costUsd, latency_ms: g.latencyMs, created_at: g.createdAtUs,
      })),
  },
  {
    // One row per rubric item of each grade: the long form a notebook groups by item.
    name: 'grade_items',
    columns: [['answer', 'STRING'], ['judge', 'STRING'], ['judge_config_hash', 'STRING'], ['rubric_version', 'INT32'], ['item', 'STRING'], ['weight', 'DOUBLE'], ['verdict', 'STRING'], ['points', 'DOUBLE']],
    rows: (x) =>
      x.grades.flatMap((g) => (g.items ?? []).map((i) => ({ answer: g.answer, judge: g.judge, judge_config_hash: g.judgeHash, rubric_version: g.rubricVersion, item: i.id, weight: i.weight, verdict: i.verdict, points: i.points }))),
  },
  {
    // rubric_version: of the answer's rubric, as in rubrics.jsonl; campaign: the name of the campaign the label was given in (null: plain);
    // claim_sentence: the hash of the sentence a claim mark was given on (null: unknown), so a moved split shows it stale there too;
    // created_at: when it was given (the latest of a person's labels is theirs; campaign exports show it).
    name: 'labels',
    columns: [['answer', 'STRING'], ['run', 'STRING'], ['item', 'STRING'], ['annotator', 'STRING'], ['kind', 'STRING'], ['label', 'STRING'], ['rubric_version', 'INT32'], ['campaign', 'STRING'], ['claim_sentence', 'STRING'], ['created_at', 'STRING']],
    rows: (x) => x.labels.map((l) => ({ answer: l.answer, run: x.run.name, item: l.item, annotator: l.annotator, kind: l.kind, label: l.label, rubric_version: l.rubricVersion, campaign: l.campaign, claim_sentence: l.claimSentence, created_at: l.createdAtUs })),
  },
  {
    name: 'assembly_scores',
    columns: [
      ['answer', 'STRING'], ['status', 'STRING'], ['problems', 'JSON'], ['direct', 'DOUBLE'], ['exact_match', 'DOUBLE'], ['neighbour', 'DOUBLE'], ['adjacency', 'DOUBLE'],
      ['proximity', 'DOUBLE'], ['shape_compatibility', 'DOUBLE'], ['corner', 'DOUBLE'], ['edge', 'DOUBLE'], ['interior', 'DOUBLE'],
    ],
    rows: (x) =>
      x.assemblyScores.map((s) => ({
        answer: s.answer, status: s.status, problems: s.problems, direct: s.direct, exact_match: s.exactMatch, neighbour: s.neighbour, adjacency: s.adjacency,
        proximity: s.proximity, shape_compatibility: s.shapeCompatibility, corner: s.byPosition.corner, edge: s.byPosition.edge, interior: s.byPosition.interior,
      })),
  },
];

/** A row with its columns in the spec's order (every column present, null when missing). */
export function ordered(spec: TableSpec, row: Row): Row {
  return Object.fromEntries(spec.columns.map(([c]) => [c, row[c] ?? null]));
}

export function jsonlOf(spec: TableSpec, rows: readonly Row[]): string {
  return rows
    .map((r) => {
      const o = ordered(spec, r);
      return JSON.stringify(spec.omitNulls ? Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)) : o);
    })
    .map((l) => `${l}\n`)
    .join('');
}
