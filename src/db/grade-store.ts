import type { Database } from './client.ts';
import type { JobLease } from '../judges/store.ts';
import { type GroupOptions, groupCommit } from './group-commit.ts';

/**
 * The grade upsert — one grade per (answer, judge configuration, rubric version) — as a group commit: the
 * jobs a worker has in flight share one prepared statement per batch instead of a round trip each. (What
 * a job reads before its call is grading's rule, in src/services/grading/queued-read.ts.)
 *
 * Grades are versioned: a changed judge (a new judges row) or a changed rubric (a new rubric version) is a
 * new key, so it adds a grade and every earlier one stays stored; reads take the newest (docs/grades.md).
 * The same configuration, rubric version and answer is the same grade: grading it again replaces it in
 * place (same id), which is how a provider_error is retried and how a rerun never duplicates a grade.
 * A failure (any status but ok) never replaces an ok grade, whoever writes it (a live regrade, a job, a
 * panel): the ok grade stays with its id, scores and time, and the failed attempt is noted in its
 * meta.lastAttempt {status, reason, at, calls}; the next grade written under the key (an ok regrade) drops the note.
 */

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

/** [column, SQL type, field of GradeRow]; the three key columns first. */
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
// The upsert replaces every column but the key, and stamps the time of the new grade (so it is the newest).
// The conflict's update happens only when the new grade is ok or the stored one is not ok — with `keep`,
// not final either (the rule the caller gives, SQL over "grades"): decided on the stored row as the
// statement finds it locked, so a grade another grader commits after the caller's last read is kept too,
// never replaced in place. A kept row gets the failed attempt in meta.lastAttempt (`a`: the rows the
// statement's snapshot holds under a key it did not write; one committed after the snapshot is kept without the note).
// Each row the lease check let through comes back: with the written id, or with none when it was kept.
const KEY = 3;
const sameKey = (a: string, b: string) => `${a}.answer_id = ${b}.answer_id and ${a}.judge_id = ${b}.judge_id and ${a}.rubric_version_id = ${b}.rubric_version_id`;
const upsert = (leased: boolean, keep: string | null) => `
  with t as (
    select k, ${names} from jsonb_to_recordset($1::jsonb) as t(k int, ${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')}${leased ? ', queue text, job_id uuid, token int' : ''})
    ${leased ? LEASE_HELD : ''}),
  w as (
    insert into grades (${names})
    select ${names} from t
    order by k
    on conflict (answer_id, judge_id, rubric_version_id) do update set
      ${COLUMNS.slice(KEY).map(([c]) => `${c} = excluded.${c}`).join(', ')}, created_at = now()
    where excluded.status = 'ok' or not (grades.status = 'ok'${keep === null ? '' : ` or ${keep}`})
    returning id, answer_id, judge_id, rubric_version_id, created_at),
  a as (
    update grades g set meta = coalesce(g.meta, '{}'::jsonb) || jsonb_build_object('lastAttempt', jsonb_build_object('status', t.status, 'reason', t.reason, 'at', now(), 'calls', t.meta->'calls'))
    from t where ${sameKey('g', 't')} and not exists (select 1 from w where ${sameKey('w', 't')})
    returning g.id)
  select t.answer_id, t.judge_id, t.rubric_version_id, w.id, w.created_at
  from t left join w on w.answer_id = t.answer_id and w.judge_id = t.judge_id and w.rubric_version_id is not distinct from t.rubric_version_id`;
// A grade under a job lease is written only while that fetch of the job still holds it (the same check
// as the pending ledger row): a worker whose job was handed to another one cannot replace its grade.
// FOR SHARE orders it against a takeover (which rewrites the job row): written before it, or refused.
const LEASE_HELD = `where exists (select 1 from pgboss.job j where j.name = t.queue and j.id = t.job_id and j.state = 'active' and j.retry_count = t.token for share)`;

const keyOf = (answerId: number, judgeId: number, versionId: number | null) => `${answerId}:${judgeId}:${versionId}`;

/** The grades row an upsert wrote. */
export interface WrittenGrade {
  id: number;
  createdAt: Date;
}

/** How a grade is written. */
export interface UpsertOptions {
  /**
   * A failed grade (any status but ok) does not replace a final grade stored under its key either, not
   * only an ok one: the upsert resolves 'kept' (a queued job whose call failed, a panel's member sample).
   */
  keepFinal?: boolean;
}

/**
 * The grade upsert: the written row; 'kept' (a failure met an ok grade — with keepFinal, any final grade —
 * which stayed, its meta.lastAttempt noting the failure); null (the lease is not held, nothing written).
 */
export type GradeUpsert = (row: GradeRow, lease?: JobLease, o?: UpsertOptions) => Promise<WrittenGrade | 'kept' | null>;

/**
 * Upserts a grade and resolves with its id and time, or null when `lease` is given and no longer held
 * (nothing written), or 'kept' (see GradeUpsert). Two grades of one key (answer, judge, rubric version) in a
 * batch go in order. `isFinal`: SQL over "grades" saying the stored row is final (services/grading's rule,
 * needs-grading.ts isFinalGrade), needed by keepFinal.
 */
export function gradeUpserter(database: Database, group: GroupOptions = {}, o: { isFinal?: string } = {}): GradeUpsert {
  const statements = new Map<string, string>();
  const statement = (leased: boolean, keep: boolean) => {
    const name = `${leased}:${keep}`;
    let sql = statements.get(name);
    if (sql === undefined) statements.set(name, (sql = upsert(leased, keep ? `(${o.isFinal})` : null)));
    return sql;
  };
  type Item = { row: GradeRow; lease: JobLease | undefined; keep: boolean };
  async function write(items: Item[]): Promise<Map<string, WrittenGrade | 'kept'>> {
    const out = new Map<string, WrittenGrade | 'kept'>();
    for (const leased of [false, true]) {
      for (const keep of [false, true]) {
        const input = items.flatMap(({ row, lease, keep: k2 }, k) =>
          Boolean(lease) !== leased || k2 !== keep ? [] : [{ k, ...Object.fromEntries(COLUMNS.map(([c, , f]) => [c, row[f] ?? null])), ...(lease ? { queue: lease.queue, job_id: lease.jobId, token: lease.token } : {}) }],
        );
        if (input.length === 0) continue;
        const r = await database.execute(statement(leased, keep), [JSON.stringify(input)], { prepare: true });
        for (const x of r.rows) {
          const key = keyOf(Number(x.answer_id), Number(x.judge_id), x.rubric_version_id == null ? null : Number(x.rubric_version_id));
          out.set(key, x.id == null ? 'kept' : { id: Number(x.id), createdAt: new Date(x.created_at) });
        }
      }
    }
    return out;
  }
  const upsertGroup = groupCommit(async (items: Item[]) => {
    // ON CONFLICT may touch a row once per statement: a repeated key waits for the next statement.
    const ids: Array<WrittenGrade | 'kept' | null> = new Array(items.length);
    let rest = items.map((x, i) => ({ ...x, i }));
    while (rest.length) {
      const seen = new Set<string>();
      const now: typeof rest = [];
      const later: typeof rest = [];
      for (const x of rest) {
        const key = keyOf(x.row.answerId, x.row.judgeId, x.row.rubricVersionId);
        (seen.has(key) ? later : now).push(x);
        seen.add(key);
      }
      const written = await write(now);
      for (const x of now) ids[x.i] = written.get(keyOf(x.row.answerId, x.row.judgeId, x.row.rubricVersionId)) ?? null;
      rest = later;
    }
    return ids;
  }, group);
  return (row: GradeRow, lease?: JobLease, uo: UpsertOptions = {}) => {
    if (uo.keepFinal && !o.isFinal) return Promise.reject(new Error('gradeUpserter: keepFinal needs the isFinal rule'));
    return upsertGroup({ row, lease, keep: Boolean(uo.keepFinal) });
  };
}
