import type { Database } from '../../src/db/client.ts';
import { campaigns, grades, judges, labels } from '../../src/db/schema.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';

/**
 * A run whose export is hard to carry exactly (export-roundtrip and export-reimport tests): answers with
 * unicode, quotes, commas, newlines, a leading '=', 200,000 characters, '' beside null, 0.1 + 0.2 in meta;
 * grades of two configurations of one judge against two rubric versions, every grade column set; item labels
 * of two raters against two rubric versions, and alice's label of the same item in a campaign (rt-campaign)
 * with her whole-answer ratings there (binary, numeric, a claim mark).
 */

/** The campaign of the fixture's campaign labels: a run export names it, so the target database must hold it. */
export const CAMPAIGN = 'rt-campaign';
export async function seedCampaign(db: Database): Promise<number> {
  // A spec createCampaign would store (an import reads it: a spec that does not parse is refused).
  const spec = { name: CAMPAIGN, answers: { run: 'rt-run', task: 'describe' }, scales: { verdict: true, claims: true, binary: { question: 'Accept?' }, numeric: { k: 5, anchors: ['1', '2', '3', '4', '5'] } }, annotators: ['alice'], overlap: 1 };
  const [c] = await db.db.insert(campaigns).values({ name: CAMPAIGN, spec, overlap: 1, annotators: ['alice'] }).returning({ id: campaigns.id });
  return c!.id;
}

const rubric = (reference: string) => ({ id: 'rt-rubric', title: 'Round trip', reference, items: [{ id: 'a', text: 'A thing', weight: 1 }, { id: 'b', text: 'B thing', weight: 2 }] });

export const TEXT = 'héllo 🧩 "quoted", comma\nnewline\r\nCRLF\ttab =SUM(A1)';
export const ANSWERS = [
  { id: 'u1', task: 'describe', rubric: 'rt-rubric', text: TEXT, input_tokens: 2147483647, output_tokens: 0, meta: { x: 0.1 + 0.2, big: 2 ** 53, n: null, e: '', nested: { s: '=1+2' } } },
  { id: 'u2', task: 'describe', rubric: 'rt-rubric', text: '', status: 'no_answer' },
  { id: 'u3', task: 'describe', rubric: 'rt-rubric', text: 'x'.repeat(200_000) },
  { id: '=1+2', task: 'describe', rubric: 'rt-rubric' },
];

/** Every stored column of the run's grades, keyed by what survives a move between databases (not row ids). */
const GRADE_COLUMNS = `a.external_id, j.config_hash, rv.version, rv.content_hash, g.prompt_hash, g.status, g.reason, g.completeness, g.correctness, g.f1,
  g.items, g.claims, g.meta, g.raw_output, g.input_tokens, g.output_tokens, g.cache_read_tokens, g.cache_write_tokens, g.cost_usd, g.latency_ms,
  to_char(g.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as created_at`;
export const storedGrades = async (db: Database) =>
  (await db.execute(`select ${GRADE_COLUMNS} from grades g join answers a on a.id = g.answer_id join judges j on j.id = g.judge_id
    left join rubric_versions rv on rv.id = g.rubric_version_id order by a.external_id, j.config_hash, rv.version`)).rows;

export async function seedRun(db: Database): Promise<void> {
  await importParsedRubrics(db, [rubric('first reference')]);
  await importParsedRubrics(db, [rubric('second reference')]);
  const versions = (await db.execute(`select id from rubric_versions order by version`)).rows.map((r) => Number(r.id));
  await importAnswersJsonl(db, { path: 'a.jsonl', content: ANSWERS.map((a) => JSON.stringify(a)).join('\n') }, { run: 'rt-run', model: 'rt-model' });
  const ids = new Map((await db.execute(`select id, external_id from answers`)).rows.map((r) => [String(r.external_id), Number(r.id)]));
  // Two configurations of one judge id: their grades must stay apart, by config hash.
  const [j1] = await db.db.insert(judges).values({ slug: 'rt-judge', provider: 'p', model: 'pm', config: { promptText: 'one' }, configHash: 'rt-hash-1' }).returning();
  const [j2] = await db.db.insert(judges).values({ slug: 'rt-judge', provider: 'p', model: 'pm', config: { promptText: 'two' }, configHash: 'rt-hash-2' }).returning();
  const item = (id: string, weight: number, verdict: string, points: number) => ({ id, weight, verdict, evidence: `${id}: "x", y\n=z`, points });
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
  await db.db.insert(grades).values([
    { answerId: ids.get('u1')!, judgeId: j1!.id, rubricVersionId: versions[0]!, promptHash: 'ph-1', status: 'ok', reason: null, completeness: 1 / 3, correctness: 0.1 + 0.2, f1: 0.3,
      items: [item('a', 1, 'correct', 1), item('b', 2, 'missing', 0)], claims: [{ text: 'c', verdict: 'supported' }], meta: { promptHash: 'ph-1', k: 0.1 + 0.2 },
      rawOutput: TEXT, inputTokens: 10, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 40, costUsd: 0.000123, latencyMs: 5, createdAt: at(1) },
    { answerId: ids.get('u1')!, judgeId: j1!.id, rubricVersionId: versions[1]!, promptHash: 'ph-2', status: 'ok', completeness: 1, correctness: 1, f1: 1,
      items: [item('a', 1, 'correct', 1), item('b', 2, 'correct', 2)], claims: [], meta: {}, cacheReadTokens: 0, cacheWriteTokens: 7, createdAt: at(2) },
    { answerId: ids.get('u1')!, judgeId: j2!.id, rubricVersionId: versions[1]!, status: 'ok', completeness: 0, correctness: 0, f1: 0, items: [], claims: [], meta: {}, createdAt: at(3) },
    { answerId: ids.get('u3')!, judgeId: j2!.id, rubricVersionId: versions[1]!, status: 'parse_failure', reason: 'not JSON', items: null, claims: null, meta: { reason: 'not JSON' }, rawOutput: '', createdAt: at(4) },
  ]);
  const plain = [
    { answer: 'u1', run: 'rt-run', rater: 'alice', label: 'correct', item: 'a', rubric_version: 1 },
    { answer: 'u1', run: 'rt-run', rater: 'bob', label: 'partial', item: 'a', rubric_version: 2 },
  ];
  await importLabels(db, { path: 'l.jsonl', content: plain.map((l) => JSON.stringify(l)).join('\n') });
  // alice again on the same item, in a campaign: a second label of hers, apart from the plain one.
  const campaignId = await seedCampaign(db);
  await db.db.insert(labels).values([
    { answerId: ids.get('u1')!, itemKey: 'a', annotator: 'alice', kind: 'human', label: 'missing', campaignId, rubricVersionId: versions[1]! },
    // Her whole-answer campaign ratings (src/services/campaigns/units.ts): keys no rubric item has.
    { answerId: ids.get('u1')!, itemKey: 'answer:binary', annotator: 'alice', kind: 'human', label: 'true', campaignId, rubricVersionId: versions[1]! },
    { answerId: ids.get('u1')!, itemKey: 'answer:numeric', annotator: 'alice', kind: 'human', label: '4', campaignId, rubricVersionId: versions[1]! },
    // A claim verdict the annotation path stores (label-values.ts): a run export's labels are checked as a label file's.
    { answerId: ids.get('u1')!, itemKey: 'claim:0', annotator: 'alice', kind: 'human', label: 'true', campaignId, rubricVersionId: versions[1]! },
  ]);
}
