import { badInput } from '../../domain/errors.ts';
import type { RatingsReport } from '../../analysis/ratings.ts';
import type { TangramModelSummary } from '../../scoring/tangram/batch.ts';
import type { TangramResult } from '../../scoring/tangram/verify.ts';
import type { Command } from '../command.ts';
import { numberFlag, readJson, readText } from '../io.ts';
import { keyValues, table, type Cell } from '../table.ts';

/** `assay score tangram` (one answer or a JSONL batch) and `assay analyze ratings` (expert ratings). */

type Values = Record<string, unknown>;
const str = (values: Values, name: string): string | undefined => {
  const v = values[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

function renderResult(r: TangramResult): string {
  const pairs: [string, Cell][] = [
    ['status', r.status],
    ['syntaxError', r.syntaxError],
    ['rigidError', r.rigidError],
    ['overlapError', r.overlapError],
    ['connectivityError', r.connectivityError],
    ['iou', r.iou],
    ['hausdorff', r.hausdorff],
    ['validPass', r.validPass],
    ['success', r.success],
  ];
  const problems = r.problems.length === 0 ? [] : ['', 'problems:', ...r.problems.map((p) => `  - ${p}`)];
  return [keyValues(pairs), ...problems].join('\n');
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function renderBatch(models: Record<string, TangramModelSummary>, rows: number): string {
  const body = Object.entries(models).map(([m, s]): Cell[] => [
    m,
    s.n,
    pct(s.syntaxErrorRate),
    pct(s.rigidErrorRate),
    pct(s.physicalErrorRate),
    pct(s.validPassRate),
    pct(s.successRate),
    s.meanIou,
    s.meanHausdorff,
  ]);
  return [
    table(['model', 'n', 'syntax', 'rigid', 'physical', 'validPass', 'success', 'meanIoU', 'meanHausdorff'], body),
    '',
    `${rows} answers; per-answer results and overlap/connectivity rates with --json.`,
  ].join('\n');
}

const scoreTangram: Command = {
  path: ['score', 'tangram'],
  summary: 'Verify tangram assemblies: syntax, rigid pieces, overlap, connectivity, IoU and Hausdorff to the target',
  usage: '--target T.json --answer A.txt | --answers A.jsonl [--target T.json] [--targets TS.jsonl] [--iou-threshold 0.99] [--tolerance 0.005]',
  options: {
    target: { type: 'string' },
    targets: { type: 'string' },
    answer: { type: 'string' },
    answers: { type: 'string' },
    'iou-threshold': { type: 'string' },
    tolerance: { type: 'string' },
  },
  async run({ values }) {
    const answer = str(values, 'answer');
    const answers = str(values, 'answers');
    if ((answer === undefined) === (answers === undefined)) throw badInput('give exactly one of --answer A.txt (one answer) or --answers A.jsonl (a batch)');
    const iouThreshold = numberFlag(values, 'iou-threshold', { min: 0, max: 1 });
    const tolerance = numberFlag(values, 'tolerance', { min: 0 });
    if (tolerance === 0) throw badInput('--tolerance must be > 0');
    const opts = { iouThreshold, tolerance };
    const { parseTangramTarget } = await import('../../scoring/tangram/parse.ts');
    const { verifyTangram } = await import('../../scoring/tangram/verify.ts');
    const targetPath = str(values, 'target');
    const target = targetPath === undefined ? null : parseTangramTarget(readJson(targetPath, 'target'), `target ${targetPath}`);

    if (answer !== undefined) {
      if (!target) throw badInput('missing required option --target (the silhouette to match)');
      if (str(values, 'targets') !== undefined) throw badInput('--targets goes with --answers (a batch), not --answer');
      const result = verifyTangram(target, readText(answer, 'answer'), opts);
      return { json: result, text: renderResult(result) };
    }

    const { parseAnswersJsonl, parseTargetsJsonl } = await import('../../scoring/tangram/rows.ts');
    const { summarizeTangram } = await import('../../scoring/tangram/batch.ts');
    const targetsPath = str(values, 'targets');
    const byId = targetsPath === undefined ? new Map() : parseTargetsJsonl(readText(targetsPath, 'targets'), `targets ${targetsPath}`);
    const rows = parseAnswersJsonl(readText(answers!, 'answers'), `answers ${answers}`, { byId, fallback: target });
    const results = rows.map((row) => ({ id: row.id, model: row.model, ...verifyTangram(row.target, row.response, opts) }));
    const models = summarizeTangram(results.map((result) => ({ model: result.model, result })));
    return { json: { models, results }, text: renderBatch(models, results.length) };
  },
};

function renderRatings(report: RatingsReport): string {
  const summary = table(
    ['model', 'criterion', 'n', 'mean ± sd'],
    report.summaries.map((s) => [s.model, s.criterion, s.n, `${s.mean.toFixed(2)} ± ${s.sd === null ? '—' : s.sd.toFixed(2)}`]),
  );
  const agreement = table(
    ['criterion', 'raters', 'answers', 'complete', 'ICC2', 'ICC2k', 'ICC3', 'alpha ordinal', 'alpha interval'],
    report.agreement.map((a) => [
      a.criterion,
      a.raters.length,
      a.units,
      a.completeUnits,
      a.icc?.ICC2.value,
      a.icc?.ICC2k.value,
      a.icc?.ICC3.value,
      a.alpha.ordinal.alpha,
      a.alpha.interval.alpha,
    ]),
    3,
  );
  const notes = report.agreement.flatMap((a) => (a.iccReason ? [`${a.criterion}: ICC not computed: ${a.iccReason}`] : []));
  return ['Ratings per model and criterion (mean ± sample SD)', summary, '', 'Agreement across experts', agreement, ...notes].join('\n');
}

/** Ratings given in the annotation workspace and campaigns (labels at answer:numeric), from the database. */
async function storedRatingRows(run: string | undefined, campaign: string | undefined) {
  const { withDatabase } = await import('../database.ts');
  const { storedRatings } = await import('../../services/stored-ratings.ts');
  return withDatabase((database) => storedRatings(database, { ...(run !== undefined ? { run } : {}), ...(campaign !== undefined ? { campaign } : {}) }));
}

const analyzeRatings: Command = {
  path: ['analyze', 'ratings'],
  summary: 'Expert ratings: mean ± SD per model and criterion; ICC and Krippendorff alpha across experts',
  usage: '--input R.jsonl (rows {"model","item","criterion","rater","rating"}) | --run R and/or --campaign C (the workspace\'s stored 1..k ratings)',
  options: { input: { type: 'string' }, run: { type: 'string' }, campaign: { type: 'string' } },
  async run({ values }) {
    const input = str(values, 'input');
    const run = str(values, 'run');
    const campaign = str(values, 'campaign');
    const stored = run !== undefined || campaign !== undefined;
    if (input !== undefined && stored) throw badInput('give either --input or --run/--campaign, not both');
    if (input === undefined && !stored) throw badInput('missing required option --input (or --run R / --campaign C for stored ratings)');
    const { parseRatingsJsonl, summarizeRatings } = await import('../../analysis/ratings.ts');
    const rows = input !== undefined ? parseRatingsJsonl(readText(input, 'input'), `input ${input}`) : await storedRatingRows(run, campaign);
    const report = summarizeRatings(rows);
    return { json: report, text: renderRatings(report) };
  },
};

export default [scoreTangram, analyzeRatings];
