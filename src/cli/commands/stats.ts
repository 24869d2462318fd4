import { AssayError, badInput, isAssayError } from '../../domain/errors.ts';
import { countsFromRatings, fleissKappa } from '../../stats/fleiss.ts';
import { icc } from '../../stats/icc.ts';
import { parseList, parseMatrix, requireLabels, requireNumberMatrix, requireNumbers, type Cell as DataCell } from '../../stats/input.ts';
import { cohenKappa, gwetAC, scottPi, type KappaWeights } from '../../stats/kappa.ts';
import { krippendorffAlpha, type AlphaLevel } from '../../stats/krippendorff.ts';
import { unifyLabelTypes } from '../../stats/label-types.ts';
import { kendall, pearson, spearman } from '../../stats/correlation.ts';
import { mcnemar } from '../../stats/mcnemar.ts';
import type { Label } from '../../stats/types.ts';
import { wilson } from '../../stats/wilson.ts';
import type { Command } from '../command.ts';
import { choiceFlag, numberFlag, readText, requireFlag } from '../io.ts';
import { keyValues, table, type Cell } from '../table.ts';

/** `assay stats …`: the agreement and interval statistics of src/stats on JSON or CSV files (design §3). */

type Values = Record<string, unknown>;

const isCsv = (path: string) => /\.csv$/i.test(path);
const source = (flag: string, path: string) => `--${flag} ${path}`;

function listFrom(values: Values, flag: string) {
  const path = requireFlag(values, flag);
  return { path, list: parseList(readText(path, `--${flag}`), source(flag, path), isCsv(path)) };
}

function matrixFrom(values: Values, flag: string) {
  const path = requireFlag(values, flag);
  return { path, rows: parseMatrix(readText(path, `--${flag}`), source(flag, path), isCsv(path)) };
}

/** Library checks speak of "data"/"counts"; name the file the user gave instead. */
function naming<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isAssayError(e) && e.code === 'bad_input') throw new AssayError('bad_input', `${what}: ${e.message}`);
    throw e;
  }
}

/**
 * Warnings go to stderr (one line each, after the result is computed, so a failing command still
 * prints exactly one line) and into the JSON document as `warnings`, only when there are any.
 */
function warn(command: string, warnings: readonly string[], json: Record<string, unknown>): void {
  if (warnings.length === 0) return;
  json.warnings = [...warnings];
  for (const w of warnings) process.stderr.write(`assay stats ${command}: warning: ${w}\n`);
}

const fmtCi = (ci: [number, number] | null | undefined): string => (ci ? `[${ci[0].toFixed(4)}, ${ci[1].toFixed(4)}]` : '—');

const ciLabel = (confidence: number) => `${Math.round(confidence * 1000) / 10}% CI`;

/** p-values below 1e-4 in scientific notation, so a tiny p never prints as 0.0000. */
const fmtP = (p: number | null | undefined): Cell => (typeof p === 'number' && p > 0 && p < 1e-4 ? p.toExponential(2) : p);

function confidenceFlag(values: Values): number {
  const c = numberFlag(values, 'confidence') ?? 0.95;
  if (!(c > 0 && c < 1)) throw badInput(`--confidence must be strictly between 0 and 1 (e.g. 0.95), got ${String(values.confidence)}`);
  return c;
}

const KAPPA_METHODS = { cohen: cohenKappa, scott: scottPi, gwet: gwetAC } as const;
const CORRELATIONS = ['pearson', 'spearman', 'kendall'] as const;
const LEVELS: readonly AlphaLevel[] = ['nominal', 'ordinal', 'interval', 'ratio'];

const kappaCommand: Command = {
  path: ['stats', 'kappa'],
  summary: "Two raters' agreement: Cohen's kappa (or Scott's pi, Gwet's AC1/AC2) with SE and CI",
  usage: '--a FILE --b FILE [--weights none|linear|quadratic] [--method cohen|scott|gwet] [--categories FILE] [--confidence 0.95]',
  options: { a: { type: 'string' }, b: { type: 'string' }, weights: { type: 'string' }, method: { type: 'string' }, categories: { type: 'string' }, confidence: { type: 'string' } },
  async run({ values }) {
    const weights = choiceFlag<KappaWeights>(values, 'weights', ['none', 'linear', 'quadratic'], 'none');
    const method = choiceFlag(values, 'method', ['cohen', 'scott', 'gwet'] as const, 'cohen');
    const confidence = confidenceFlag(values);
    const a = listFrom(values, 'a');
    const b = listFrom(values, 'b');
    requireLabels(a.list, source('a', a.path));
    requireLabels(b.list, source('b', b.path));
    if (a.list.length !== b.list.length) throw badInput(`--a ${a.path} has ${a.list.length} labels but --b ${b.path} has ${b.list.length} (need one label per item in each)`);
    const lists = [{ source: source('a', a.path), values: a.list }, { source: source('b', b.path), values: b.list }];
    if (typeof values.categories === 'string') {
      const c = listFrom(values, 'categories');
      requireLabels(c.list, source('categories', c.path));
      lists.push({ source: source('categories', c.path), values: c.list });
    }
    // One label type across both raters and the category list (label-types.ts): 1 and "1" are one category or an error.
    const unified = unifyLabelTypes(lists);
    const [la, lb, cats] = unified.sources.map((l) => l.values as Label[]);
    const categories = cats;
    const r = naming('--categories', () => KAPPA_METHODS[method](la!, lb!, { weights, confidence, ...(categories ? { categories } : {}) }));
    const json: Record<string, unknown> = { kappa: r.kappa, se: r.se, ci: r.ci, agreement: r.agreement, n: r.n, categories: r.categories, method, weights };
    if (r.excluded) json.excluded = r.excluded;
    if (r.reason) json.reason = r.reason;
    warn('kappa', unified.warnings, json);
    const name = { cohen: "Cohen's kappa", scott: "Scott's pi", gwet: weights === 'none' ? "Gwet's AC1" : "Gwet's AC2" }[method];
    const pairs: [string, Cell][] = [
      [weights === 'none' ? name : `${name} (${weights} weights)`, r.kappa],
      ['standard error', r.se],
      [ciLabel(confidence), fmtCi(r.ci)],
      ['agreement', r.agreement],
      ['items', r.n],
      ['categories', r.categories.join(', ')],
    ];
    if (r.excluded) pairs.push(['left out (label not in --categories)', r.excluded]);
    if (r.reason) pairs.push(['undefined because', r.reason]);
    return { json, text: keyValues(pairs) };
  },
};

const fleissCommand: Command = {
  path: ['stats', 'fleiss'],
  summary: "Fleiss' kappa for many raters from a subjects × categories count matrix (or --raw labels)",
  usage: '--data FILE (subjects × categories counts; with --raw, subjects × raters labels) [--raw] [--categories FILE]',
  options: { data: { type: 'string' }, raw: { type: 'boolean' }, categories: { type: 'string' } },
  async run({ values }) {
    const { path, rows } = matrixFrom(values, 'data');
    const warnings: string[] = [];
    let counts: number[][];
    let names: string[] | undefined;
    if (values.raw === true) {
      // Subjects × raters labels: count them per category (the categories name the columns).
      const unified = unifyLabelTypes([{ source: source('data', path), values: rows }]);
      warnings.push(...unified.warnings, ...orientationWarnings(source('data', path), rows, 'subjects × raters'));
      const converted = naming(source('data', path), () => countsFromRatings(unified.sources[0]!.values as DataCell[][]));
      counts = converted.counts;
      names = converted.categories.map(String);
    } else {
      counts = requireNumberMatrix(rows, source('data', path));
      if (typeof values.categories === 'string') {
        const c = listFrom(values, 'categories');
        const src = source('categories', c.path);
        names = naming(src, () => {
          const list = requireLabels(c.list, src).map(String);
          const twice = list.findIndex((name, i) => list.indexOf(name) !== i);
          if (twice >= 0) throw badInput(`value ${twice + 1}: name ${JSON.stringify(list[twice])} is listed twice`);
          return list;
        });
      }
    }
    const r = naming(source('data', path), () => fleissKappa(counts, names));
    const json: Record<string, unknown> = { kappa: r.kappa, se: r.se, z: r.z, p: r.p, byCategory: r.byCategory, subjects: r.subjects, raters: r.raters };
    if (r.reason) json.reason = r.reason;
    warn('fleiss', warnings, json);
    const head = keyValues([
      ["Fleiss' kappa", r.kappa],
      ['SE (under kappa = 0)', r.se],
      ['z', r.z],
      ['p', fmtP(r.p)],
      ['subjects × raters', `${r.subjects} × ${r.raters}`],
      ...(r.reason ? ([['undefined because', r.reason]] as [string, Cell][]) : []),
    ]);
    return { json, text: `${head}\n\n${table(['category', 'kappa'], Object.entries(r.byCategory))}` };
  },
};

const alphaCommand: Command = {
  path: ['stats', 'alpha'],
  summary: "Krippendorff's alpha from a raters × units matrix: one row per rater, one column per unit (null = missing)",
  usage: '--data FILE (rows = raters, columns = units) --level nominal|ordinal|interval|ratio [--order FILE]',
  options: { data: { type: 'string' }, level: { type: 'string' }, order: { type: 'string' } },
  async run({ values }) {
    const level = choiceFlag<AlphaLevel>(values, 'level', LEVELS, 'nominal');
    if (values.level === undefined) throw badInput('missing required option --level (nominal|ordinal|interval|ratio)');
    const { path, rows } = matrixFrom(values, 'data');
    const sources: { source: string; values: readonly DataCell[] | readonly (readonly DataCell[])[] }[] = [{ source: source('data', path), values: rows }];
    if (typeof values.order === 'string') {
      const o = listFrom(values, 'order');
      requireLabels(o.list, source('order', o.path));
      sources.push({ source: source('order', o.path), values: o.list });
    }
    const unified = unifyLabelTypes(sources);
    const data = unified.sources[0]!.values as DataCell[][];
    const order = unified.sources[1]?.values as Label[] | undefined;
    const r = naming(source('data', path), () => krippendorffAlpha(data, level, order ? { order } : {}));
    const warnings = [...unified.warnings, ...orientationWarnings(source('data', path), data, 'raters × units')];
    const json: Record<string, unknown> = { alpha: r.alpha, level: r.level, units: r.units, pairable: r.pairable, values: r.values };
    if (r.reason) json.reason = r.reason;
    warn('alpha', warnings, json);
    const pairs: [string, Cell][] = [
      [`Krippendorff's alpha (${level})`, r.alpha],
      ['raters × units', `${data.length} × ${r.units}`],
      ['pairable units', r.pairable],
      ['pairable values', r.values],
    ];
    if (r.reason) pairs.push(['undefined because', r.reason]);
    return { json, text: keyValues(pairs) };
  },
};

/**
 * Rating data has few raters and many units; a matrix the other way round is most likely transposed, and
 * read as it stands it answers a different question with a meaningless number (alpha 0.0101 on the
 * issue's example). Not an error: a small study can have more raters than units.
 */
function orientationWarnings(src: string, rows: readonly (readonly unknown[])[], shape: 'raters × units' | 'subjects × raters'): string[] {
  const r = rows.length;
  const c = rows[0]?.length ?? 0;
  const [rowName, colName] = shape === 'raters × units' ? ['raters', 'units'] : ['subjects', 'raters'];
  const suspicious = shape === 'raters × units' ? r > c : c > r;
  if (!suspicious) return [];
  return [
    `${src} has ${r} rows and ${c} columns, read as ${r} ${rowName} × ${c} ${colName}; this command expects one row per ${rowName.slice(0, -1)} and one column per ${colName.slice(0, -1)} — if the rows are ${colName}, transpose the matrix`,
  ];
}

const wilsonCommand: Command = {
  path: ['stats', 'wilson'],
  summary: 'Wilson score interval for a proportion',
  usage: '--successes K --trials N [--confidence 0.95]',
  options: { successes: { type: 'string' }, trials: { type: 'string' }, confidence: { type: 'string' } },
  async run({ values }) {
    requireFlag(values, 'successes');
    requireFlag(values, 'trials');
    const k = numberFlag(values, 'successes', { integer: true, min: 0 })!;
    const n = numberFlag(values, 'trials', { integer: true, min: 0 })!;
    if (k > n) throw badInput(`--successes ${k} cannot exceed --trials ${n}`);
    const confidence = confidenceFlag(values);
    const r = wilson(k, n, confidence);
    const json: Record<string, unknown> = { estimate: r.estimate, ci: r.ci, successes: k, trials: n, confidence };
    if (r.reason) json.reason = r.reason;
    return { json, text: keyValues([['estimate', r.estimate], [ciLabel(confidence), fmtCi(r.ci)], ['successes / trials', `${k} / ${n}`]]) };
  },
};

const corrCommand: Command = {
  path: ['stats', 'corr'],
  summary: 'Pearson, Spearman or Kendall (tau-b) correlation with a two-sided p-value',
  usage: '--x FILE --y FILE --method pearson|spearman|kendall [--confidence 0.95]',
  options: { x: { type: 'string' }, y: { type: 'string' }, method: { type: 'string' }, confidence: { type: 'string' } },
  async run({ values }) {
    const method = choiceFlag(values, 'method', CORRELATIONS, 'pearson');
    const confidence = confidenceFlag(values);
    const x = listFrom(values, 'x');
    const y = listFrom(values, 'y');
    const xs = requireNumbers(x.list, source('x', x.path));
    const ys = requireNumbers(y.list, source('y', y.path));
    if (xs.length !== ys.length) throw badInput(`--x ${x.path} has ${xs.length} values but --y ${y.path} has ${ys.length} (need one pair per item)`);
    const r = method === 'pearson' ? pearson(xs, ys, confidence) : method === 'spearman' ? spearman(xs, ys) : kendall(xs, ys);
    const json: Record<string, unknown> = { r: r.r, p: r.p, n: r.n };
    if ('ci' in r) json.ci = r.ci;
    json.method = method;
    if (r.reason) json.reason = r.reason;
    const pairs: [string, Cell][] = [[{ pearson: 'Pearson r', spearman: 'Spearman rho', kendall: 'Kendall tau-b' }[method], r.r], ['p (two-sided)', fmtP(r.p)], ['n', r.n]];
    if ('ci' in r) pairs.push([`${ciLabel(confidence)} (Fisher z)`, fmtCi(r.ci as [number, number] | null)]);
    if (r.reason) pairs.push(['note', r.reason]);
    return { json, text: keyValues(pairs) };
  },
};

const mcnemarCommand: Command = {
  path: ['stats', 'mcnemar'],
  summary: "McNemar's test on the discordant counts b and c of a paired 2 × 2 table",
  usage: '--b N --c N [--exact] [--no-correction]',
  options: { b: { type: 'string' }, c: { type: 'string' }, exact: { type: 'boolean' }, 'no-correction': { type: 'boolean' } },
  async run({ values }) {
    requireFlag(values, 'b');
    requireFlag(values, 'c');
    const b = numberFlag(values, 'b', { integer: true, min: 0 })!;
    const c = numberFlag(values, 'c', { integer: true, min: 0 })!;
    const r = mcnemar(b, c, { exact: values.exact === true, correction: values['no-correction'] !== true });
    const json: Record<string, unknown> = { statistic: r.statistic, p: r.p, method: r.method, b, c };
    if (r.reason) json.reason = r.reason;
    return { json, text: keyValues([['method', r.method], ['statistic', r.statistic], ['p (two-sided)', fmtP(r.p)], ['b, c', `${b}, ${c}`]]) };
  },
};

const iccCommand: Command = {
  path: ['stats', 'icc'],
  summary: 'Intraclass correlations (Shrout & Fleiss six forms) from a subjects × raters matrix: one row per subject, one column per rater',
  usage: '--data FILE (rows = subjects, columns = raters) [--confidence 0.95]',
  options: { data: { type: 'string' }, confidence: { type: 'string' } },
  async run({ values }) {
    const confidence = confidenceFlag(values);
    const { path, rows } = matrixFrom(values, 'data');
    const ratings = requireNumberMatrix(rows, source('data', path));
    const r = naming(source('data', path), () => icc(ratings, confidence));
    const json: Record<string, unknown> = { ...r };
    warn('icc', orientationWarnings(source('data', path), ratings, 'subjects × raters'), json);
    const forms = ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] as const;
    const text = table(
      ['form', 'ICC', 'F', 'df1', 'df2', 'p', ciLabel(confidence)],
      forms.map((f) => [f, r[f].value, r[f].F, r[f].df1, r[f].df2, fmtP(r[f].p), fmtCi(r[f].ci)]),
    );
    return { json, text: `${text}\n${r.subjects} subjects × ${r.raters} raters${r.reason ? ` — ${r.reason}` : ''}` };
  },
};

export default [kappaCommand, fleissCommand, alphaCommand, wilsonCommand, corrCommand, mcnemarCommand, iccCommand];
