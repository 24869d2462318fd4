import { badInput } from '../../domain/errors.ts';
import { parseCsv } from '../import-csv.ts';
import type { ImportFile } from '../import-parse.ts';
import { scoreSheet } from './scores.ts';
import type { Converted, ConvertOptions, ForeignRow, ForeignScore, Skipped } from './types.ts';

/**
 * VLMEvalKit prediction tables (`<model>_<dataset>.xlsx`, saved as TSV or CSV): one row per question with
 * `index`, `question`, `prediction` (the model's answer) and `answer` (the reference), plus the dataset's
 * own columns (options A–D, category, …). Evaluated tables add `hit` (0/1) or `score`. The file names the
 * model only in its name, which may hold underscores: give --model.
 * https://github.com/open-compass/VLMEvalKit/blob/main/docs/en/Development.md
 */

const SCORE_COLUMNS = ['hit', 'score'];

/**
 * What VLMEvalKit writes as the prediction of a failed call: an API model's fail_msg after its retries
 * ('Failed to obtain answer via API.', some wrappers adding a detail or naming the API: vlmeval/api), a local
 * model's 'Failed to obtain answer: <error>' under SKIP_ERR=1 (vlmeval/inference.py). Its reruns retry them.
 */
const FAILED_CALL = /^Failed to obtain answer\b/;

export function convertVlmEvalKit(file: ImportFile, opts: ConvertOptions): Converted {
  if (/\.xlsx?$/i.test(file.path)) throw badInput(`${file.path}: Excel files are not read; save the sheet as TSV or CSV (VLMEvalKit writes both with the same columns)`);
  const records = parseCsv(file, /\.tsv$/i.test(file.path) ? '\t' : ',');
  const header = Object.keys(records[0]!.value as object);
  // parseCsv drops empty cells, so a column seen in no record at all is a column the header lacks.
  if (!records.some((l) => 'prediction' in (l.value as object))) throw badInput(`${file.path}: no 'prediction' values (is this a VLMEvalKit prediction table? columns: ${header.join(', ')})`);
  const rows: ForeignRow[] = [];
  const skipped: Skipped[] = [];
  const sheet = scoreSheet();
  for (const loc of records) {
    const r = loc.value as Record<string, string>;
    const where = `${file.path}:${loc.line}`;
    if (r.index === undefined) throw badInput(`${where}: index: missing (every VLMEvalKit row has an index)`);
    // A failed call, not an answer: stored as its text it was judged and carried its hit of 0 as a grade (exit 0).
    const failed = r.prediction !== undefined && FAILED_CALL.test(r.prediction.trim());
    const row: Record<string, unknown> = {
      id: r.index,
      text: failed ? null : (r.prediction ?? null),
      ...(failed ? { status: 'error' } : {}),
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.rubric ? { rubric: opts.rubric } : {}),
      ...(opts.puzzle ? { puzzle: opts.puzzle } : {}),
      meta: { source: { tool: 'vlmevalkit', index: r.index, ...(r.answer !== undefined ? { answer: r.answer.slice(0, 2000) } : {}), ...(r.category !== undefined ? { category: r.category.slice(0, 200) } : {}), ...(r.question !== undefined ? { question: r.question.slice(0, 2000) } : {}), ...(failed ? { error: r.prediction!.slice(0, 2000) } : {}) } },
    };
    const scores: ForeignScore[] = [];
    if (failed) {
      const given = SCORE_COLUMNS.filter((c) => r[c] !== undefined).map((c) => `'${c}'`);
      skipped.push({ where, reason: `prediction is VLMEvalKit's message for a failed call: imported as an error, without its text${given.length ? ` and score ${given.join(', ')}` : ''}` });
      rows.push({ loc: { ...loc, value: row }, row, scores });
      continue;
    }
    for (const c of SCORE_COLUMNS) {
      if (r[c] === undefined) continue;
      sheet.add(where, scores, skipped, c, r[c], undefined);
    }
    rows.push({ loc: { ...loc, value: row }, row, scores });
  }
  sheet.finish(skipped);
  return { tool: 'vlmevalkit', rows, skipped };
}
