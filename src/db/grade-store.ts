import type { Database } from './client.ts';
import type { JobLease } from '../judges/store.ts';
import { type GroupOptions, groupCommit } from './group-commit.ts';

/**
 * The two grade statements a queued job runs — read the answer with its rubric's latest version and
 * this judge's grade of it, and upsert the one grade per (answer, judge) — as group commits: the jobs
 * a worker has in flight share one prepared statement per batch instead of a round trip each.
 */

export interface QueuedAnswer {
  id: number;
  text: string | null;
  status: string;
  rubric: string | null;
  versionId: number | null;
  gradeStatus: string | null;
}

const READ = `
  select a.id, a.text, a.status, r.slug as rubric,
    (select v.id from rubric_versions v where v.rubric_id = a.rubric_id order by v.version desc limit 1) as version_id,
    (select g.status from grades g where g.answer_id = a.id and g.judge_id = $2::int) as grade_status
  from answers a left join rubrics r on r.id = a.rubric_id
  where a.id in (select (jsonb_array_elements_text($1::jsonb))::int)`;

/** Reads queued answers for one judges row; `undefined` for an id with no answer. */
export function queuedAnswerReader(database: Database, judgeId: number, group: GroupOptions = {}): (answerId: number) => Promise<QueuedAnswer | undefined> {
  return groupCommit(async (ids: number[]) => {
    const r = await database.execute(READ, [JSON.stringify([...new Set(ids)]), judgeId], { prepare: true });
    const byId = new Map<number, QueuedAnswer>();
    for (const row of r.rows) {
      byId.set(Number(row.id), {
        id: Number(row.id),
        text: row.text ?? null,
        status: row.status,
        rubric: row.rubric ?? null,
        versionId: row.version_id == null ? null : Number(row.version_id),
        gradeStatus: row.grade_status ?? null,
      });
    }
    return ids.map((id) => byId.get(id));
  }, group);
}

/** A grades row as written (all columns but id and created_at). */
export interface GradeRow {
  answerId: number;
  judgeId: number;
  rubricVersionId: number;
  promptHash: string | null;
  status: string;
  reason: string | null;
  completeness: number | null;
  correctness: number | null;
  f1: number | null;
  items: unknown;
  claims: unknown;
  meta: Record<string, unknown>;
  rawOutput: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
  latencyMs: number | null;
}

/** [column, SQL type, field of GradeRow]; the key columns first. */
const COLUMNS: Array<[string, string, keyof GradeRow]> = [
  ['answer_id', 'int', 'answerId'],
  ['judge_id', 'int', 'judgeId'],
  ['rubric_version_id', 'int', 'rubricVersionId'],
  ['prompt_hash', 'text', 'promptHash'],
  ['status', 'text', 'status'],
  ['reason', 'text', 'reason'],
  ['completeness', 'float8', 'completeness'],
  ['correctness', 'float8', 'correctness'],
  ['f1', 'float8', 'f1'],
  ['items', 'jsonb', 'items'],
  ['claims', 'jsonb', 'claims'],
  ['meta', 'jsonb', 'meta'],
  ['raw_output', 'text', 'rawOutput'],
  ['input_tokens', 'int', 'inputTokens'],
  ['output_tokens', 'int', 'outputTokens'],
  ['cache_read_tokens', 'int', 'cacheReadTokens'],
  ['cache_write_tokens', 'int', 'cacheWriteTokens'],
  ['cost_usd', 'float8', 'costUsd'],
  ['latency_ms', 'int', 'latencyMs'],
];
const names = COLUMNS.map(([c]) => c).join(', ');
// The upsert replaces every column but the key, and stamps the time of the new grade.
const upsert = (leased: boolean) => `
  insert into grades (${names})
  select ${names} from jsonb_to_recordset($1::jsonb) as t(k int, ${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')}${leased ? ', queue text, job_id uuid, token int' : ''})
  ${leased ? LEASE_HELD : ''}
  order by k
  on conflict (answer_id, judge_id) do update set
    ${COLUMNS.slice(2).map(([c]) => `${c} = excluded.${c}`).join(', ')}, created_at = now()
  returning id, answer_id, judge_id`;
// A grade under a job lease is written only while that fetch of the job still holds it (the same check
// as the pending ledger row): a worker whose job was handed to another one cannot replace its grade.
// FOR SHARE orders it against a takeover (which rewrites the job row): written before it, or refused.
const LEASE_HELD = `where exists (select 1 from pgboss.job j where j.name = t.queue and j.id = t.job_id and j.state = 'active' and j.retry_count = t.token for share)`;
const UPSERT = upsert(false);
const UPSERT_LEASED = upsert(true);

const keyOf = (answerId: number, judgeId: number) => `${answerId}:${judgeId}`;

/**
 * Upserts a grade and resolves with its id, or null when `lease` is given and no longer held (nothing
 * written). Two grades of one (answer, judge) in a batch go in order.
 */
export function gradeUpserter(database: Database, group: GroupOptions = {}): (row: GradeRow, lease?: JobLease) => Promise<number | null> {
  async function write(items: Array<{ row: GradeRow; lease: JobLease | undefined }>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const leased of [false, true]) {
      const input = items.flatMap(({ row, lease }, k) =>
        Boolean(lease) !== leased ? [] : [{ k, ...Object.fromEntries(COLUMNS.map(([c, , f]) => [c, row[f] ?? null])), ...(lease ? { queue: lease.queue, job_id: lease.jobId, token: lease.token } : {}) }],
      );
      if (input.length === 0) continue;
      const r = await database.execute(leased ? UPSERT_LEASED : UPSERT, [JSON.stringify(input)], { prepare: true });
      for (const x of r.rows) out.set(keyOf(Number(x.answer_id), Number(x.judge_id)), Number(x.id));
    }
    return out;
  }
  const upsertGroup = groupCommit(async (items: Array<{ row: GradeRow; lease: JobLease | undefined }>) => {
    // ON CONFLICT may touch a row once per statement: a repeated key waits for the next statement.
    const ids: Array<number | null> = new Array(items.length);
    let rest = items.map((x, i) => ({ ...x, i }));
    while (rest.length) {
      const seen = new Set<string>();
      const now: typeof rest = [];
      const later: typeof rest = [];
      for (const x of rest) {
        const key = keyOf(x.row.answerId, x.row.judgeId);
        (seen.has(key) ? later : now).push(x);
        seen.add(key);
      }
      const written = await write(now);
      for (const x of now) ids[x.i] = written.get(keyOf(x.row.answerId, x.row.judgeId)) ?? null;
      rest = later;
    }
    return ids;
  }, group);
  return (row, lease) => upsertGroup({ row, lease });
}
