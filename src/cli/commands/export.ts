import type { Command } from '../command.ts';
import { withDatabase } from '../database.ts';
import { choiceFlag, requireFlag } from '../io.ts';
import { table } from '../table.ts';

/**
 * `assay export --run R --out DIR`: a run's answers, grades (per judge and item), labels and assembly
 * scores as JSONL and Parquet with a dataset card (docs/formats.md#run-exports).
 */
const exportCmd: Command = {
  path: ['export'],
  summary: 'Export a run (answers, grades per judge and item, labels, assembly scores) as JSONL and Parquet with a dataset card',
  usage: '--run NAME --out DIR [--format jsonl|parquet|both] [--license ID]',
  options: { run: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' }, license: { type: 'string' } },
  async run({ values }) {
    const run = requireFlag(values, 'run');
    const out = requireFlag(values, 'out');
    const { EXPORT_FORMATS, exportRun } = await import('../../services/export/write-export.ts');
    const format = choiceFlag(values, 'format', EXPORT_FORMATS, 'both');
    const { Fields } = await import('../../domain/fields.ts');
    const license = typeof values.license === 'string' ? values.license : undefined;
    if (license !== undefined) {
      const r = Fields.tag.safeParse(license);
      if (!r.success) throw (await import('../../domain/errors.ts')).badInput(`--license: ${r.error.issues[0]!.message} (an SPDX id such as cc-by-4.0)`);
    }
    const r = await withDatabase((db) => exportRun(db, { run, out, format, ...(license ? { license } : {}) }));
    const text = [`exported run ${r.run} to ${r.dir}`, table(['table', 'rows'], Object.entries(r.rows)), `files: ${r.files.join(', ')}`].join('\n');
    return { json: r, text };
  },
};

export default exportCmd;
