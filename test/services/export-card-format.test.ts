import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportRun } from '../../src/services/export/write-export.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * The dataset card names the files the export holds. `--format jsonl` wrote a card whose front matter gave
 * every table `data_files: <table>.parquet` and whose Files section said each table is "a JSON Lines file and
 * a Parquet file": no Parquet file was written, so the Hub's loader (which reads the configs) found none of
 * the five tables, exit 0. A JSONL export's configs name the .jsonl files; a Parquet-only export's card no
 * longer speaks of JSON Lines tables.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-card-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const front = (card: string) => parse(card.split('---\n')[1]!) as { configs: Array<{ config_name: string; data_files: string }> };
const filesSection = (card: string) => card.slice(card.indexOf('## Files'), card.indexOf('| table |'));

describeDb('run export dataset card by format', (ctx) => {
  const out = (f: string) => join(dir, `${f}-${Math.random().toString(36).slice(2)}`);
  const outs: Record<'jsonl' | 'parquet' | 'both', string> = { jsonl: out('jsonl'), parquet: out('parquet'), both: out('both') };
  beforeAll(async () => {
    await seedRun(ctx.database);
    for (const format of ['jsonl', 'parquet', 'both'] as const) await exportRun(ctx.database, { run: 'rt-run', out: outs[format], format, now: new Date('2026-12-01T00:00:00Z') });
  }, 120_000);

  it('--format jsonl: the configs name the JSONL files written', () => {
    const card = readFileSync(join(outs.jsonl, 'README.md'), 'utf8');
    const configs = front(card).configs;
    expect(configs.map((c) => c.data_files)).toEqual(['answers.jsonl', 'grades.jsonl', 'grade_items.jsonl', 'labels.jsonl']);
    for (const c of configs) expect(existsSync(join(outs.jsonl, c.data_files)), c.data_files).toBe(true);
    expect(filesSection(card)).toContain('Each table is a JSON Lines file (`answers.jsonl` leaves out null fields');
    expect(filesSection(card)).not.toContain('Parquet');
  });

  it('--format parquet and both: the Parquet files, and JSON Lines only when written', () => {
    for (const format of ['parquet', 'both'] as const) {
      const card = readFileSync(join(outs[format], 'README.md'), 'utf8');
      const configs = front(card).configs;
      expect(configs.map((c) => c.data_files)).toEqual(['answers.parquet', 'grades.parquet', 'grade_items.parquet', 'labels.parquet']);
      for (const c of configs) expect(existsSync(join(outs[format], c.data_files)), c.data_files).toBe(true);
    }
    expect(filesSection(readFileSync(join(outs.parquet, 'README.md'), 'utf8'))).toContain('Each table is a Parquet file.');
    expect(filesSection(readFileSync(join(outs.both, 'README.md'), 'utf8'))).toContain('Each table is a JSON Lines file and a Parquet file with the same rows');
  });
});
