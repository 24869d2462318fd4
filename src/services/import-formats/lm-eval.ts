import { badInput } from '../../domain/errors.ts';
import { CAPS, text } from '../../domain/limits.ts';
import { locatedError, parseJsonl, type ImportFile, type Located } from '../import-parse.ts';
import { isObject } from './located.ts';
import { scoreSheet } from './scores.ts';
import type { Converted, ConvertOptions, ForeignRow, ForeignScore, Skipped } from './types.ts';

/**
 * lm-evaluation-harness per-sample logs (`lm_eval … --log_samples`: `samples_<task>_<date>.jsonl`), one
 * line per document and filter: `doc_id`, `doc`, `target`, `arguments`, `resps`, `filtered_resps`,
 * `filter`, `metrics` (the metric names) and each metric's value as a field. The file names no model:
 * give --model. Only generated text is an answer (generate_until); loglikelihood requests are skipped.
 * The answers are one filter's lines: the file's only one, or --filter's (chooseFilter).
 * https://github.com/EleutherAI/lm-evaluation-harness/blob/main/docs/interface.md
 */

const SAMPLE_FIELDS = new Set(['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'task_name']);

function metricNames(s: Record<string, unknown>): string[] {
  if (Array.isArray(s.metrics)) return s.metrics.filter((m): m is string => typeof m === 'string');
  // Older logs carry no list: every other scalar field is a metric.
  return Object.keys(s).filter((k) => !SAMPLE_FIELDS.has(k) && ['number', 'boolean'].includes(typeof s[k]));
}

const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * The document's one answer from `filtered_resps` (one entry per request: lm_eval/evaluator.py), or null
 * when it holds no text (loglikelihood: [logprob, is_greedy] per choice). A generation request's entry is
 * a string after a selecting filter (take_first), or a list when the filter keeps one (majority_vote
 * last) or every repeat. The metrics were computed over the whole of it, so several responses — repeats,
 * or several requests — cannot become one answer with that score: refused, not the first kept.
 */
function generatedText(loc: Located, filtered: unknown): string | null {
  if (!Array.isArray(filtered) || filtered.length === 0) return null;
  const texts = filtered.filter(isText);
  if (texts.length > 1) {
    throw locatedError(loc, ['filtered_resps'], `holds ${texts.length} generated responses (one per request); assay stores one answer per document and the metrics were computed over all of them`);
  }
  const first = filtered[0];
  if (isText(first)) return first;
  if (Array.isArray(first) && first.length > 0 && first.every(isText)) {
    if (first.length === 1) return first[0]!;
    throw locatedError(
      loc,
      ['filtered_resps', 0],
      `holds ${first.length} responses (the task's repeats) and its metrics were computed over all of them; assay stores one answer per document: log the samples with a filter that keeps one (take_first, majority_vote)`,
    );
  }
  return null;
}

/**
 * The request type of a document, from its logged `arguments` (gen_args_<i>: {arg_0, arg_1, …}; older logs a
 * list of argument lists): generate_until's second argument is its generation kwargs, loglikelihood's (and
 * multiple choice's) the continuation to score, and loglikelihood_rolling has none. The responses cannot tell:
 * the harness logs every one as a string ("-1.5", "False"), so a logprob reads like generated text.
 */
function requestKind(args: unknown): 'generation' | 'loglikelihood' | 'rolling' | undefined {
  const first = Array.isArray(args) ? args[0] : isObject(args) ? args.gen_args_0 : undefined;
  const at = (n: number): unknown => (Array.isArray(first) ? first[n] : isObject(first) ? first[`arg_${n}`] : undefined);
  if (at(0) === undefined) return undefined;
  const second = at(1);
  if (second === undefined) return 'rolling';
  if (typeof second === 'string') return 'loglikelihood';
  return isObject(second) || second === null ? 'generation' : undefined;
}

/** A filter name as `--filter` (CLI) or `filter` (API) gives it: one schema for both fronts. */
export const LmEvalFilterSchema = text(CAPS.name);

interface Sample {
  loc: Located;
  s: Record<string, unknown>;
  /** The line's `filter`; null when the line names none (older harness versions). */
  filter: string | null;
}

const filterList = (names: ReadonlyArray<string | null>): string =>
  names.map((n) => n ?? '(lines without a filter name)').join(', ');

/**
 * The filter whose lines become the answers. Each filter's lines hold their own text (gsm8k: strict-match
 * "[invalid]" where flexible-extract read "5") and metrics computed on it, so with several in the file
 * none is taken without --filter: the first one was, silently.
 */
function chooseFilter(path: string, present: ReadonlyArray<string | null>, asked: string | undefined): string | null {
  if (asked !== undefined) {
    if (present.includes(asked)) return asked;
    if (present.every((f) => f === null)) throw badInput(`${path}: --filter '${asked}': the lines of this file name no filter (no "filter" field); import it without --filter`);
    throw badInput(`${path}: --filter '${asked}': no such filter in the file (it holds ${filterList(present)})`);
  }
  if (present.length > 1) throw badInput(`${path}: holds the samples of ${present.length} filters (${filterList(present)}), each with its own response text and metrics; choose one with --filter NAME`);
  return present[0] ?? null;
}

/**
 * One line per document of the chosen filter. A second one (a file appended to by two runs, or an older
 * harness that logged each filter's line without its name) would be a second answer or replace the first.
 */
function refuseSecondLine(samples: readonly Sample[]): void {
  const seen = new Map<string, number | null>();
  for (const { loc, s, filter } of samples) {
    const id = String(s.doc_id);
    if (!seen.has(id)) {
      seen.set(id, loc.line);
      continue;
    }
    const first = seen.get(id);
    const on = first === null || first === undefined ? 'earlier in the file' : `on line ${first}`;
    throw locatedError(
      loc,
      ['doc_id'],
      filter === null
        ? `document ${id} is ${on} too, and the lines name no filter: a harness that logs one line per document and filter without its name; which line is which filter's cannot be told (log the samples with a newer lm-eval, or keep one line per document)`
        : `document ${id} of filter '${filter}' is ${on} too (a file appended to by two runs?): one answer per document; keep one of the lines`,
    );
  }
}

export function convertLmEval(file: ImportFile, opts: ConvertOptions): Converted {
  const rows: ForeignRow[] = [];
  const skipped: Skipped[] = [];
  const sheet = scoreSheet();
  const samples: Sample[] = [];
  for (const loc of parseJsonl(file)) {
    const s = loc.value;
    if (!isObject(s) || (typeof s.doc_id !== 'number' && typeof s.doc_id !== 'string')) {
      skipped.push({ where: `${file.path}:${loc.line}`, reason: 'not a sample (no doc_id)' });
      continue;
    }
    samples.push({ loc, s, filter: typeof s.filter === 'string' ? s.filter : null });
  }
  const present = [...new Set(samples.map((x) => x.filter))];
  const filter = samples.length === 0 ? null : chooseFilter(file.path, present, opts.filter);
  for (const other of present.filter((f) => f !== filter)) {
    const of = samples.filter((x) => x.filter === other);
    skipped.push({ where: file.path, reason: `${other === null ? 'lines without a filter name' : `filter '${other}'`}: ${of.length} line${of.length === 1 ? '' : 's'} (from line ${of[0]!.loc.line}) not imported: --filter ${filter}` });
  }
  const chosen = samples.filter((x) => x.filter === filter);
  refuseSecondLine(chosen);
  // lm-eval's results.json names a metric with its filter ("exact_match,strict-match"): the same metric of
  // two filters is two scorers. Filter none (the default, or unnamed lines) keeps the bare metric name.
  const scorer = (m: string) => (filter === null || filter === 'none' ? m : `${m},${filter}`);
  for (const { loc, s } of chosen) {
    const where = `${file.path}:${loc.line}`;
    const kind = requestKind(s.arguments);
    if (kind === 'loglikelihood' || kind === 'rolling') {
      const what = kind === 'rolling' ? 'a loglikelihood_rolling request: filtered_resps holds a perplexity logprob' : 'a loglikelihood or multiple-choice request: filtered_resps holds scores';
      skipped.push({ where, reason: `no generated text (${what}, not an answer)` });
      continue;
    }
    if (s.filtered_resps === undefined) {
      // resps is the raw generation before the filter; the metrics were computed on filtered_resps.
      skipped.push({ where, reason: 'no filtered_resps (the filtered response the metrics were computed on); resps, the unfiltered generation, is not taken in its place' });
      continue;
    }
    const resp = generatedText(loc, s.filtered_resps);
    if (resp === null) {
      skipped.push({ where, reason: 'no generated text (a loglikelihood or multiple-choice request: filtered_resps holds scores, not an answer)' });
      continue;
    }
    const row: Record<string, unknown> = {
      id: String(s.doc_id),
      text: resp,
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.rubric ? { rubric: opts.rubric } : {}),
      ...(opts.puzzle ? { puzzle: opts.puzzle } : {}),
      meta: { source: { tool: 'lm-eval', doc_id: s.doc_id, filter: filter ?? 'none', ...(typeof s.target === 'string' ? { target: s.target.slice(0, 2000) } : {}), ...(typeof s.doc_hash === 'string' ? { doc_hash: s.doc_hash } : {}) } },
    };
    const scores: ForeignScore[] = [];
    for (const m of metricNames(s)) {
      if (s[m] === undefined) continue;
      sheet.add(where, scores, skipped, scorer(m), s[m], undefined);
    }
    rows.push({ loc: { ...loc, value: row }, row, scores });
  }
  sheet.finish(skipped);
  return { tool: 'lm-eval', rows, skipped };
}
