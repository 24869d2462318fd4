import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { calibrationReport, describeThenSolveReport, leaderboard } from '../../src/services/reports.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, openTestDatabase, rowCounts } from '../helpers/db.ts';

/**
 * Every run of the seeded examples exported and imported into an empty database: the rows an export
 * carries (by their natural keys, not row ids) and the served reports are the same there.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-rr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The exported tables' rows by what survives a move between databases. */
const DUMPS: Record<string, string> = {
  answers: `select r.name, r.model, r.effort, r.tags, a.external_id, a.task, a.text, a.status, a.input_tokens, a.output_tokens, a.meta, p.slug as puzzle, ru.slug as rubric
    from answers a join runs r on r.id = a.run_id left join puzzles p on p.id = a.puzzle_id left join rubrics ru on ru.id = a.rubric_id order by 1, 5`,
  grades: `select r.name, a.external_id, j.config_hash, j.slug, rv.content_hash, g.status, g.reason, g.completeness, g.correctness, g.f1, g.items, g.claims, g.meta, g.raw_output,
    g.prompt_hash, g.input_tokens, g.output_tokens, g.cost_usd, g.latency_ms, to_char(g.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as at
    from grades g join answers a on a.id = g.answer_id join runs r on r.id = a.run_id join judges j on j.id = g.judge_id left join rubric_versions rv on rv.id = g.rubric_version_id order by 1, 2, 3, 5`,
  labels: `select r.name, a.external_id, l.item_key, l.annotator, l.kind, l.label, c.name as campaign, rv.content_hash, l.claim_sentence, to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as at
    from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id left join campaigns c on c.id = l.campaign_id left join rubric_versions rv on rv.id = l.rubric_version_id order by 1, 2, 3, 4, 7 nulls first`,
  assembly_scores: `select r.name, a.external_id, s.status, s.problems, s.direct, s.exact_match, s.neighbour, s.adjacency, s.proximity, s.shape_compatibility, s.by_position
    from assembly_scores s join answers a on a.id = s.answer_id join runs r on r.id = a.run_id order by 1, 2`,
  judges: `select slug, provider, model, config_hash, config from judges where id in (select judge_id from grades) order by config_hash`,
  rubric_versions: `select ru.slug, rv.content_hash, rv.title, rv.reference from rubric_versions rv join rubrics ru on ru.id = rv.rubric_id order by 1, 2`,
  puzzles: `select p.slug, p.rows, p.cols, p.layout, p.edges from puzzles p order by 1`,
  campaigns: `select name, spec, overlap, annotators, adjudicators from campaigns order by 1`,
  campaign_answers: `select c.name, r.name as run, a.external_id, ca.rank, ca.reason from campaign_answers ca join campaigns c on c.id = ca.campaign_id join answers a on a.id = ca.answer_id join runs r on r.id = a.run_id order by 1, 4`,
  adjudications: `select c.name, a.external_id, ad.item_key, ad.label from adjudications ad join campaigns c on c.id = ad.campaign_id join answers a on a.id = ad.answer_id order by 1, 2, 3`,
};

async function dump(db: Database): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, q] of Object.entries(DUMPS)) out[t] = (await db.execute(q)).rows;
  return out;
}

/** The reports as served, without row ids (answer ids differ between databases). */
async function reports(db: Database): Promise<unknown> {
  const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'answerId' || k === 'id' || k === 'answer' ? undefined : x)));
  const out: Record<string, unknown> = {};
  for (const unverifiable of ['count', 'exclude'] as const) out[`leaderboard-${unverifiable}`] = strip(await leaderboard(db, { unverifiable }));
  for (const scale of ['verdict', 'binary', 'numeric'] as const) {
    out[`calibration-${scale}`] = strip(await calibrationReport(db, { scale, seed: 1 }).catch((e: Error) => `refused: ${e.message}`));
  }
  out.dts = strip(await describeThenSolveReport(db, {}).catch((e: Error) => `refused: ${e.message}`));
  return out;
}

describeDb('export → import of every seeded run: rows and reports', (ctx) => {
  let runs: string[] = [];
  beforeAll(async () => {
    await seedExamples(ctx.database);
    runs = (await ctx.database.execute(`select name from runs order by id`)).rows.map((r) => String(r.name));
  }, 180_000);

  it('an empty database importing every run holds the same rows and serves the same reports', async () => {
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      for (const run of runs) {
        const out = join(dir, `${run.replace(/\W/g, '_')}-${Math.random().toString(36).slice(2)}`);
        await exportRun(ctx.database, { run, out, format: 'jsonl' });
        await importRunExport(fresh.database, out);
      }
      const here = await dump(fresh.database);
      const there = await dump(ctx.database);
      for (const t of Object.keys(DUMPS)) expect(here[t], t).toEqual(there[t]);
      expect(await reports(fresh.database)).toEqual(await reports(ctx.database));
      const counts = await rowCounts(fresh.database);
      const before = await rowCounts(ctx.database);
      for (const t of ['answers', 'grades', 'assembly_scores', 'labels', 'runs']) expect(counts[t], t).toBe(before[t]);
    } finally {
      await fresh.drop();
    }
  }, 300_000);
});
