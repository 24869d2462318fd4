import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Database } from '../../db/client.ts';
import { badInput } from '../../domain/errors.ts';
import { datasetCard } from './card.ts';
import { parquetOf } from './parquet.ts';
import { readRunExport } from './read-run.ts';
import { jsonlOf, TABLES } from './tables.ts';

/**
 * `assay export --run R --out DIR`: the run as JSONL and Parquet tables, `judges.json`, `rubrics.jsonl`
 * (each rubric version graded against), `puzzles.jsonl` (the puzzle import format), `campaigns.jsonl` (the campaigns of its labels) and a dataset card;
 * `assay import export DIR` reads it back, ready to push to the Hugging Face Hub. DIR must be new or empty: an export never
 * overwrites files it did not write.
 */

export const EXPORT_FORMATS = ['jsonl', 'parquet', 'both'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportResult {
  run: string;
  dir: string;
  files: string[];
  rows: Record<string, number>;
}

export async function exportRun(database: Database, q: { run: string; out: string; format?: ExportFormat; license?: string; now?: Date }): Promise<ExportResult> {
  let existing: string[] = [];
  try {
    existing = readdirSync(q.out);
  } catch (e) {
    // Missing: made below. A file, or a path under one, is no directory to export into (not an internal error).
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') throw badInput(`--out ${q.out}: not a directory (it or a parent is a file); export into a new or empty directory`);
    existing = [];
  }
  if (existing.length) throw badInput(`--out ${q.out}: not empty (${existing.length} entr${existing.length === 1 ? 'y' : 'ies'}); export into a new or empty directory`);
  const x = await readRunExport(database, q.run);
  const format = q.format ?? 'both';
  const files: Record<string, string | Uint8Array> = {};
  const rows: Record<string, number> = {};
  for (const t of TABLES) {
    const r = t.rows(x);
    rows[t.name] = r.length;
    if (format !== 'parquet') files[`${t.name}.jsonl`] = jsonlOf(t, r);
    if (format !== 'jsonl') files[`${t.name}.parquet`] = parquetOf(t, r);
  }
  files['judges.json'] = `${JSON.stringify(x.judges, null, 2)}\n`;
  // Every rubric version a grade was made against (and the latest), in version order.
  files['rubrics.jsonl'] = x.rubrics.map((r) => `${JSON.stringify({ version: r.version, contentHash: r.contentHash, rubric: r.rubric })}\n`).join('');
  files['puzzles.jsonl'] = x.puzzles.map((p) => `${JSON.stringify(p)}\n`).join('');
  // The campaigns its labels were given in, with their part in this run: an import recreates or matches them.
  files['campaigns.jsonl'] = x.campaigns.map((c) => `${JSON.stringify(c)}\n`).join('');
  files['README.md'] = datasetCard(x, new Map(Object.entries(rows)), TABLES, { license: q.license ?? 'other', exportedAt: (q.now ?? new Date()).toISOString(), format });
  // Written beside DIR and moved into place in one rename: a failure part way leaves no half export
  // (which a later import would read as a run with some of its grades).
  const parent = dirname(resolve(q.out));
  mkdirSync(parent, { recursive: true });
  // mkdir, not mkdtemp: mkdtemp makes a 0700 directory whatever the umask, and the rename made that --out's mode.
  const tmp = join(parent, `.${basename(q.out)}.partial-${randomBytes(6).toString('hex')}`);
  mkdirSync(tmp);
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(tmp, name), content);
    if (existsSync(q.out)) {
      // An empty directory the user made keeps its mode (a group may share it).
      chmodSync(tmp, statSync(q.out).mode & 0o7777);
      rmdirSync(q.out); // empty: checked above
    }
    renameSync(tmp, q.out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { run: x.run.name, dir: q.out, files: Object.keys(files).sort(), rows };
}
