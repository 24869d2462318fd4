import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { describeDb, ENGINES, openTestDatabase, rowCounts } from '../helpers/db.ts';
import { ANSWERS, CAMPAIGN, seedCampaign, seedRun, storedGrades, TEXT } from './export-fixture.ts';

/**
 * Export → import into an empty database keeps every row and field of a run exactly (the run of
 * export-fixture.ts: hard text and meta, two configurations of one judge against two rubric versions, none
 * merged; labels of one rater in and out of a campaign, each with its rubric version), and JSONL and Parquet
 * hold the same rows.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-rt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (d: string, f: string) => readFileSync(join(d, f), 'utf8');
const lines = (d: string, f: string) => read(d, f).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
describeDb('run export round trip', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out, now: new Date('2026-12-01T00:00:00Z') });
  }, 60_000);

  it('writes every answer exactly, and every table as JSONL and Parquet with the same rows', async () => {
    const answers = lines(out, 'answers.jsonl');
    expect(answers.map((a) => a.id)).toEqual(['u1', 'u2', 'u3', '=1+2']);
    expect(answers[0]).toMatchObject({ text: TEXT, input_tokens: 2147483647, output_tokens: 0, meta: ANSWERS[0]!.meta });
    expect(answers[1]!.text).toBe('');
    expect((answers[2]!.text as string).length).toBe(200_000);
    expect('text' in answers[3]!).toBe(false);
    expect(lines(out, 'grades.jsonl').map((g) => [g.judge, g.judge_config_hash, g.rubric_version])).toEqual([
      ['rt-judge', 'rt-hash-1', 1], ['rt-judge', 'rt-hash-1', 2], ['rt-judge', 'rt-hash-2', 2], ['rt-judge', 'rt-hash-2', 2],
    ]);
    // alice's plain label and her campaign label of the same item are two rows, told apart by campaign.
    expect(lines(out, 'labels.jsonl').map((l) => [l.annotator, l.item, l.label, l.campaign, l.rubric_version])).toEqual([
      ['alice', 'a', 'correct', null, 1], ['alice', 'a', 'missing', CAMPAIGN, 2], ['bob', 'a', 'partial', null, 2],
      ['alice', 'answer:binary', 'true', CAMPAIGN, 2], ['alice', 'answer:numeric', '4', CAMPAIGN, 2], ['alice', 'claim:0', 'true', CAMPAIGN, 2],
    ]);
    for (const t of ['answers', 'grades', 'grade_items', 'labels']) {
      const buf = readFileSync(join(out, `${t}.parquet`));
      const parquet = (await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) })) as Record<string, unknown>[];
      const back = t === 'answers' ? parquet.map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null))) : parquet;
      expect(back, t).toEqual(lines(out, `${t}.jsonl`));
    }
  });

  it('into an empty database: every answer, grade column and label as stored; exporting again gives the same files', async () => {
    // The same engine as the suite's database (ctx.url is set on PostgreSQL only).
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      // The campaign its labels name comes with the export (campaigns.jsonl).
      await importRunExport(fresh.database, out);
      const answerColumns = `select external_id, task, text, status, input_tokens, output_tokens, meta from answers order by external_id`;
      expect((await fresh.database.execute(answerColumns)).rows).toEqual((await ctx.database.execute(answerColumns)).rows);
      expect(await storedGrades(fresh.database)).toEqual(await storedGrades(ctx.database));
      const labelColumns = `select a.external_id, l.item_key, l.annotator, l.kind, l.label, c.name as campaign, rv.version, rv.content_hash from labels l join answers a on a.id = l.answer_id
        left join campaigns c on c.id = l.campaign_id left join rubric_versions rv on rv.id = l.rubric_version_id order by 1, 2, 3, 6 nulls first`;
      expect((await fresh.database.execute(labelColumns)).rows).toEqual((await ctx.database.execute(labelColumns)).rows);
      const out2 = `${out}-again`;
      await exportRun(fresh.database, { run: 'rt-run', out: out2, now: new Date('2026-12-01T00:00:00Z') });
      for (const f of readdirSync(out)) expect(read(out2, f), f).toEqual(read(out, f));
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('into a database numbering the rubric otherwise: each label keeps the version of its content (matched by hash)', async () => {
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      // Another v1 here: the export's v1 and v2 become v2 and v3.
      await importParsedRubrics(fresh.database, [{ id: 'rt-rubric', title: 'Round trip', reference: 'held before', items: [{ id: 'a', text: 'A thing', weight: 1 }] }]);
      await seedCampaign(fresh.database);
      await importRunExport(fresh.database, out);
      const q = `select a.external_id, l.item_key, l.annotator, c.name, rv.version, rv.content_hash from labels l join answers a on a.id = l.answer_id
        left join campaigns c on c.id = l.campaign_id left join rubric_versions rv on rv.id = l.rubric_version_id order by 1, 2, 3, 4 nulls first`;
      const here = (await fresh.database.execute(q)).rows;
      const there = (await ctx.database.execute(q)).rows;
      expect(here.map((r) => r.content_hash)).toEqual(there.map((r) => r.content_hash));
      expect(here.map((r) => Number(r.version))).toEqual(there.map((r) => Number(r.version) + 1));
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('an older export (no campaigns.jsonl) into a database without the campaign its labels name: refused (exit 2) naming it, nothing written', async () => {
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    const old = `${out}-old`;
    cpSync(out, old, { recursive: true });
    rmSync(join(old, 'campaigns.jsonl'));
    try {
      const before = await rowCounts(fresh.database);
      await expect(importRunExport(fresh.database, old)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(new RegExp(`labels\\.jsonl:2: campaign: no campaign '${CAMPAIGN}' in this database.*nothing written`)) });
      expect(await rowCounts(fresh.database)).toEqual(before);
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
