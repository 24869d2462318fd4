import { badInput } from '../../domain/errors.ts';
import { parseJsonDocument, type ImportFile } from '../import-parse.ts';
import { at, contentText, isObject, short } from './located.ts';
import { scoreSheet } from './scores.ts';
import type { Converted, ConvertOptions, ForeignRow, ForeignScore, Skipped } from './types.ts';

/**
 * Inspect AI eval logs in the JSON log format (`inspect eval --log-format json`; the `.eval` zip format
 * is converted first with `inspect log convert --to json`). One EvalLog: `eval` (task, model, run_id),
 * `samples[]` with `id`, `epoch`, `output` (ModelOutput: `choices[0].message.content`, `stop_reason`,
 * `usage`), `scores` ({scorer: Score{value, answer, explanation}}) and `error`.
 * https://inspect.aisi.org.uk/eval-logs.html, https://inspect.aisi.org.uk/reference/inspect_ai.log.html
 */

// Inspect's StopReason values that mean the output was cut off by a limit.
const CUT_OFF = new Set(['max_tokens', 'model_length']);

export function convertInspect(file: ImportFile, opts: ConvertOptions): Converted {
  const log = parseJsonDocument(file);
  if (!isObject(log) || !isObject(log.eval)) throw badInput(`${file.path}: not an Inspect eval log (expected a JSON object with "eval" and "samples"; convert .eval logs with: inspect log convert --to json)`);
  const samples = log.samples;
  if (!Array.isArray(samples)) throw badInput(`${file.path}: samples: missing (the log was written without samples, or the run did not finish)`);
  const evalModel = typeof log.eval.model === 'string' ? log.eval.model : undefined;
  const model = opts.model ?? evalModel;
  const task = short(log.eval.task, 200);
  // Epochs as the eval declares them (eval.config.epochs), so a log holding only some epochs' samples (a run
  // cut short) names its answers as the complete log does; the samples' own epochs when it declares none.
  const config = isObject(log.eval.config) ? log.eval.config : {};
  const declared = typeof config.epochs === 'number' && Number.isInteger(config.epochs) ? config.epochs : 1;
  const several = declared > 1 || new Set(samples.map((s) => (isObject(s) ? s.epoch : undefined))).size > 1;
  const legacyScorer = legacyScorerName(log.results);
  const rows: ForeignRow[] = [];
  const skipped: Skipped[] = [];
  const sheet = scoreSheet();
  samples.forEach((s, i) => {
    const where = `${file.path}: samples[${i}]`;
    if (!isObject(s) || (typeof s.id !== 'string' && typeof s.id !== 'number')) {
      skipped.push({ where, reason: 'not a sample (no id)' });
      return;
    }
    // A sample flagged invalid after the run (inspect_ai.log.invalidate_samples) is not one of its answers.
    if (isObject(s.invalidation)) {
      const who = short(s.invalidation.author, 200) ?? 'someone';
      const why = short(s.invalidation.reason, 500);
      skipped.push({ where, reason: `invalidated by ${who}${why ? ` (${why})` : ''} after the run (the log marks it invalid)` });
      return;
    }
    const output = isObject(s.output) ? s.output : {};
    const choice = Array.isArray(output.choices) && isObject(output.choices[0]) ? output.choices[0] : {};
    const message = isObject(choice.message) ? choice.message : {};
    // Inspect's refusal fallback (fallback_models): the requested model declined, another model wrote this output
    // (output.model) and the scorers graded that. Stored, it was an answer and grade of eval.model, exit 0.
    const fallback = isObject(output.fallback) && typeof output.fallback.fallback_model === 'string' ? { model: short(output.fallback.model, 200) ?? null, fallback_model: output.fallback.fallback_model.slice(0, 200) } : undefined;
    const text = fallback ? null : typeof output.completion === 'string' && output.completion !== '' ? output.completion : contentText(message.content);
    const stop = typeof choice.stop_reason === 'string' ? choice.stop_reason : undefined;
    // A sample halted by a limit (message, token, time, context …) ends with what it had: cut off, not ok.
    const limit = isObject(s.limit) && typeof s.limit.type === 'string' ? s.limit.type : typeof s.limit === 'string' ? s.limit : undefined;
    // One answer per sample and epoch: with several epochs the epoch is part of the id.
    const id = several ? `${s.id}#${String(s.epoch)}` : String(s.id);
    const row: Record<string, unknown> = {
      id,
      text,
      ...(model ? { model } : {}),
      ...(opts.rubric ? { rubric: opts.rubric } : {}),
      ...(opts.puzzle ? { puzzle: opts.puzzle } : {}),
      ...(stop ? { stop_reason: stop } : {}),
      meta: { source: { tool: 'inspect', ...(task ? { task } : {}), sample: s.id, epoch: s.epoch ?? null, ...(short(s.target) !== undefined ? { target: short(s.target) } : {}), ...(limit ? { limit: limit.slice(0, 200) } : {}), ...(fallback ? { fallback } : {}) } },
    };
    if (s.error !== undefined && s.error !== null) row.status = 'error';
    else if (fallback) row.status = 'no_answer';
    else if ((stop && CUT_OFF.has(stop)) || limit) row.status = 'truncated';
    const usage = sampleUsage(s, evalModel, output);
    if (usage) row.usage = usage;
    const scores: ForeignScore[] = [];
    if (s.score !== undefined && s.score !== null && s.scores !== undefined && s.scores !== null) {
      throw badInput(`${where}: both "score" and "scores" (a log has the one or the other)`);
    }
    // Logs written before `scores` hold one `score` (Inspect migrates it on reading): the results name its scorer.
    const given = isObject(s.scores) ? s.scores : isObject(s.score) ? { [legacyScorer]: s.score } : {};
    if (fallback) {
      const graded = Object.keys(given).map((k) => `'${k}'`);
      const whose = graded.length ? `its text and score ${graded.join(', ')} are another model's` : "its text is another model's";
      skipped.push({ where, reason: `served by fallback model '${fallback.fallback_model}' (the requested '${fallback.model ?? 'model'}' declined it): ${whose}, so the answer is imported as ${String(row.status)} of '${model ?? 'the eval model'}' without them` });
      rows.push({ loc: at(file.path, `samples[${i}]`, row), row, scores });
      return;
    }
    // score_on_error scores a sample that errored: kept, the failure was an error and a wrong answer at once.
    if (row.status === 'error' && Object.keys(given).length > 0) {
      const message = isObject(s.error) ? short(s.error.message, 200) : short(s.error, 200);
      const graded = Object.keys(given).map((k) => `'${k}'`).join(', ');
      skipped.push({ where, reason: `the sample errored${message ? ` (${message})` : ''} and was scored anyway (score_on_error): an error is a status, not a score, so it is imported as an error without score ${graded}` });
      rows.push({ loc: at(file.path, `samples[${i}]`, row), row, scores });
      return;
    }
    for (const [scorer, score] of Object.entries(given)) {
      if (!isObject(score)) continue;
      sheet.add(where, scores, skipped, scorer, score.value, score.explanation);
    }
    rows.push({ loc: at(file.path, `samples[${i}]`, row), row, scores });
  });
  sheet.finish(skipped);
  return { tool: 'inspect', rows, skipped };
}

const tokenFields = (u: Record<string, unknown>) => ({ ...(typeof u.input_tokens === 'number' ? { input_tokens: u.input_tokens } : {}), ...(typeof u.output_tokens === 'number' ? { output_tokens: u.output_tokens } : {}) });

/**
 * The eval model's tokens over the whole sample. `output.usage` is the last call's only: a sample that called
 * its model twice stored half its tokens. `model_usage` (model → ModelUsage, Inspect's sum over the sample's
 * calls) first, else the `model` events' output.usage summed; either way only the eval model's, since a
 * model-graded scorer's calls are the sample's too. A log with neither keeps output.usage (one call).
 */
function sampleUsage(s: Record<string, unknown>, evalModel: string | undefined, output: Record<string, unknown>): Record<string, number> | undefined {
  const perModel = isObject(s.model_usage) && evalModel !== undefined ? s.model_usage[evalModel] : undefined;
  if (isObject(perModel)) return tokenFields(perModel);
  const calls = Array.isArray(s.events) ? s.events.filter((e) => isObject(e) && e.event === 'model' && (evalModel === undefined || e.model === evalModel) && isObject(e.output) && isObject(e.output.usage)) : [];
  if (calls.length > 0) {
    const sum: Record<string, number> = {};
    for (const e of calls) {
      for (const [k, v] of Object.entries(tokenFields(((e as { output: { usage: Record<string, unknown> } }).output.usage)))) sum[k] = (sum[k] ?? 0) + v;
    }
    return sum;
  }
  return isObject(output.usage) ? tokenFields(output.usage) : undefined;
}

/** The scorer of a log from before `scores`: `results.scorer.name` (EvalResults of log version 1). */
function legacyScorerName(results: unknown): string {
  const name = isObject(results) && isObject(results.scorer) ? results.scorer.name : undefined;
  return typeof name === 'string' && name.trim() !== '' ? name.slice(0, 200) : 'score';
}

/**
 * The sample an Inspect answer stands for, whatever its log named it: a log with one epoch calls it `q1`, a
 * log with several `q1#1`, so two logs of one run could store one sample twice. Task, sample id and epoch
 * (a sample without one is its eval's only epoch), from the row's `meta.source`, stored or not.
 */
export function inspectSampleKey(source: { task?: unknown; sample?: unknown; epoch?: unknown }): string {
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return `${text(source.task)}\u0000${text(source.sample)}\u0000${source.epoch === undefined || source.epoch === null ? '1' : String(source.epoch)}`;
}
