import { badInput } from '../../domain/errors.ts';
import { parseJsonDocument, type ImportFile } from '../import-parse.ts';
import { at, isObject, short } from './located.ts';
import { scoreSheet } from './scores.ts';
import type { Converted, ConvertOptions, ForeignRow, ForeignScore, Skipped } from './types.ts';

/**
 * promptfoo eval output (`promptfoo eval --output results.json`): `{evalId, results: {version, results:
 * [EvaluateResult]}}` where each result has `testIdx`, `promptIdx`, `provider` ({id, label} or an id),
 * `response` ({output, tokenUsage: {prompt, completion}, finishReason}), `gradingResult` ({pass, score,
 * reason}), `error`. Older files keep the list at `results` itself.
 * https://www.promptfoo.dev/docs/configuration/outputs
 */
export function convertPromptfoo(file: ImportFile, opts: ConvertOptions): Converted {
  const doc = parseJsonDocument(file);
  const list = isObject(doc) ? (isObject(doc.results) ? doc.results.results : doc.results) : undefined;
  if (!Array.isArray(list)) throw badInput(`${file.path}: not a promptfoo output file (expected "results": {"results": [...]}, as promptfoo eval --output results.json writes)`);
  const path = isObject(doc) && isObject(doc.results) ? 'results.results' : 'results';
  refuseUnlabelledTwins(file.path, path, list);
  const prompts = promptOrdinals(list);
  const seen = new Map<string, number>();
  const rows: ForeignRow[] = [];
  const skipped: Skipped[] = [];
  const sheet = scoreSheet();
  list.forEach((r, i) => {
    const where = `${file.path}: ${path}[${i}]`;
    if (!isObject(r)) return void skipped.push({ where, reason: 'not a result object' });
    const provider = providerOf(r) || undefined;
    const model = opts.model ?? provider;
    const response = isObject(r.response) ? r.response : {};
    const output = response.output;
    const g = isObject(r.gradingResult) ? r.gradingResult : null;
    const error = typeof r.error === 'string' && r.error !== '' ? r.error : undefined;
    // promptfoo writes a failed assertion's reason into `error` too (failureReason 1, ASSERT; older files
    // without failureReason: error = gradingResult.reason). Read as a failed call, every answer that
    // failed its assertions was stored as status error, counted missing and never graded (exit 0).
    const assertFailed = r.failureReason === 1 || (r.failureReason === undefined && g !== null && g.pass === false && error === g.reason);
    const responseFailed = typeof response.error === 'string' && response.error !== '';
    // An error with the model's text in hand came after the response (the grader failed): the answer stands.
    const failed = responseFailed || (error !== undefined && !assertFailed && typeof output !== 'string');
    if (output !== undefined && output !== null && typeof output !== 'string' && !failed) {
      return void skipped.push({ where, reason: `response.output is ${Array.isArray(output) ? 'a list' : typeof output}, not text (assay grades text answers)` });
    }
    const own = prompts.get(provider ?? '')!;
    const base = own.size > 1 ? `test-${String(r.testIdx ?? i)}-prompt-${String(own.get(r.promptIdx))}` : `test-${String(r.testIdx ?? i)}`;
    // Repeats of one test (evaluateOptions.repeat) under one provider: numbered in file order.
    const key = `${provider ?? ''}\u0000${base}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    const id = n > 1 ? `${base}#${n}` : base;
    const row: Record<string, unknown> = {
      id,
      text: typeof output === 'string' ? output : null,
      ...(model ? { model } : {}),
      ...(opts.rubric ? { rubric: opts.rubric } : {}),
      ...(opts.puzzle ? { puzzle: opts.puzzle } : {}),
      meta: { source: { tool: 'promptfoo', testIdx: r.testIdx ?? null, promptIdx: r.promptIdx ?? null, ...(provider ? { provider } : {}), ...(isObject(r.prompt) && short(r.prompt.label, 200) ? { prompt: short(r.prompt.label, 200) } : {}) } },
    };
    if (failed) row.status = 'error';
    if (typeof response.finishReason === 'string') row.finish_reason = response.finishReason;
    const usage = isObject(response.tokenUsage) ? response.tokenUsage : {};
    if (typeof usage.prompt === 'number' || typeof usage.completion === 'number') {
      row.usage = { ...(typeof usage.prompt === 'number' ? { prompt_tokens: usage.prompt } : {}), ...(typeof usage.completion === 'number' ? { completion_tokens: usage.completion } : {}) };
    }
    const scores: ForeignScore[] = [];
    if (!failed && error !== undefined && !assertFailed && !g) skipped.push({ where, reason: `error after the model's response (${error.slice(0, 200)}): the answer is imported without a score` });
    else if (g && noAssertions(g)) skipped.push({ where, reason: 'gradingResult: the test has no assertions (promptfoo scores it 1 with nothing checked); the answer is imported without a score' });
    else if (g && (r.failureReason === 2 || graderFailed(g))) {
      // A judge failure is a status, not a score: promptfoo's 0 (or an average holding it) stored as the
      // imported judge's grade counted the failure as a wrong answer in every report, exit 0.
      const why = short(g.reason, 200) ?? error?.slice(0, 200) ?? 'no reason given';
      skipped.push({ where, reason: `gradingResult: the grader failed (${why}): a judge failure, not a score; promptfoo's score ${String(g.score)} is not imported` });
    }
    else if (g && g.score !== undefined) sheet.add(where, scores, skipped, 'promptfoo', g.score, g.reason);
    rows.push({ loc: at(file.path, `${path}[${i}]`, row), row, scores });
  });
  sheet.finish(skipped);
  return { tool: 'promptfoo', rows, skipped };
}

const providerOf = (r: Record<string, unknown>): string => (isObject(r.provider) ? (short(r.provider.label, 200) ?? short(r.provider.id, 200)) : short(r.provider, 200)) ?? '';

/**
 * Providers of one id without labels (one model at two temperatures) are told apart in the file only by their
 * promptIdx columns, so they read as one provider with several prompts: their answers were stored as one run,
 * exit 0. A test answered with the same prompt in two columns of one provider name is such a pair: refused.
 */
function refuseUnlabelledTwins(file: string, path: string, list: readonly unknown[]): void {
  const columns = new Map<string, unknown>();
  list.forEach((r, i) => {
    if (!isObject(r)) return;
    const prompt = isObject(r.prompt) ? r.prompt : {};
    const which = short(r.promptId, 200) ?? short(prompt.label, 200) ?? short(prompt.raw);
    if (which === undefined) return;
    const key = `${providerOf(r)}\u0000${String(r.testIdx)}\u0000${which}`;
    if (!columns.has(key)) return void columns.set(key, r.promptIdx);
    const first = columns.get(key);
    if (first === r.promptIdx) return;
    throw badInput(
      `${file}: ${path}[${i}]: provider '${providerOf(r)}' answers test ${String(r.testIdx)} with prompt '${short(prompt.label, 200) ?? which}' in two columns (promptIdx ${String(first)} and ${String(r.promptIdx)}): two providers of one id without labels, whose answers cannot be told apart; give each provider a label`,
    );
  });
}

/**
 * Each provider's prompts numbered from 0 in promptIdx order. promptIdx counts the prompts of all providers
 * (provider × prompt), so numbering by it renamed a provider's answers with the other providers of the
 * eval (`test-0-prompt-1` beside provider A, `test-0` alone) and one run stored a test twice.
 */
function promptOrdinals(list: readonly unknown[]): Map<string, Map<unknown, number>> {
  const byProvider = new Map<string, Set<unknown>>();
  for (const r of list) {
    if (!isObject(r)) continue;
    const key = providerOf(r);
    byProvider.set(key, (byProvider.get(key) ?? new Set()).add(r.promptIdx));
  }
  const order = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));
  return new Map([...byProvider].map(([k, idx]) => [k, new Map([...idx].sort(order).map((p, n) => [p, n]))]));
}

/**
 * promptfoo grades a test without assertions `{pass: true, score: 1, reason: 'No assertions'}`
 * (AssertionsResult.noAssertsResult): imported, every answer of such an eval got full marks, exit 0.
 */
const noAssertions = (g: Record<string, unknown>): boolean => g.reason === 'No assertions' && !(Array.isArray(g.componentResults) && g.componentResults.length > 0);

/**
 * A grader that failed: promptfoo's graderFail (matchers/shared.ts) tags its GradingResult
 * `metadata.graderError`, on the assertion's component result (assert-sets nest them) or the result itself.
 */
function graderFailed(g: Record<string, unknown>): boolean {
  if (isObject(g.metadata) && g.metadata.graderError === true) return true;
  return Array.isArray(g.componentResults) && g.componentResults.some((c) => isObject(c) && graderFailed(c));
}
