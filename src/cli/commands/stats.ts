import { badInput } from '../../domain/errors.ts';
import {
  ALPHA_LEVELS,
  alphaDocument,
  corrDocument,
  CORRELATIONS,
  fleissDocument,
  iccDocument,
  kappaDocument,
  mcnemarDocument,
  wilsonDocument,
} from '../../stats/documents.ts';
import { parseList, parseMatrix } from '../../stats/input.ts';
import type { KappaWeights } from '../../stats/kappa.ts';
import type { AlphaLevel } from '../../stats/krippendorff.ts';
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

/** Warnings (already in the JSON document) also go to stderr, one line each, after the result is computed. */
function warn(command: string, warnings: readonly string[]): void {
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
    const c = typeof values.categories === 'string' ? listFrom(values, 'categories') : undefined;
    const { result: r, json, warnings } = kappaDocument(
      { a: a.list, b: b.list, categories: c?.list, weights, method, confidence },
      { a: source('a', a.path), b: source('b', b.path), categories: c ? source('categories', c.path) : '--categories FILE' },
    );
    warn('kappa', warnings);
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
    if (values.raw === true && values.categories !== undefined) throw badInput('--categories: not used with --raw (the labels name the categories)');
    const { path, rows } = matrixFrom(values, 'data');
    const c = typeof values.categories === 'string' ? listFrom(values, 'categories') : undefined;
    const { result: r, json, warnings } = fleissDocument(
      { data: rows, raw: values.raw === true, categories: c?.list },
      { data: source('data', path), categories: c ? source('categories', c.path) : '--categories' },
    );
    warn('fleiss', warnings);
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
    const level = choiceFlag<AlphaLevel>(values, 'level', ALPHA_LEVELS, 'nominal');
    if (values.level === undefined) throw badInput('missing required option --level (nominal|ordinal|interval|ratio)');
    const { path, rows } = matrixFrom(values, 'data');
    const o = typeof values.order === 'string' ? listFrom(values, 'order') : undefined;
    const { result: r, json, warnings } = alphaDocument({ data: rows, level, order: o?.list }, { data: source('data', path), order: o ? source('order', o.path) : '--order FILE' });
    warn('alpha', warnings);
    const pairs: [string, Cell][] = [
      [`Krippendorff's alpha (${level})`, r.alpha],
      ['raters × units', `${r.raters} × ${r.units}`],
      ['pairable units', r.pairable],
      ['pairable values', r.values],
    ];
    if (r.reason) pairs.push(['undefined because', r.reason]);
    return { json, text: keyValues(pairs) };
  },
};

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
    const confidence = confidenceFlag(values);
    const { result: r, json } = wilsonDocument({ successes: k, trials: n, confidence }, { successes: '--successes', trials: '--trials' });
    const pairs: [string, Cell][] = [['estimate', r.estimate], [ciLabel(confidence), fmtCi(r.ci)], ['successes / trials', `${k} / ${n}`]];
    if (r.reason) pairs.push(['undefined because', r.reason]);
    return { json, text: keyValues(pairs) };
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
    const { result: r, json } = corrDocument({ x: x.list, y: y.list, method, confidence }, { x: source('x', x.path), y: source('y', y.path) });
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
    const { result: r, json } = mcnemarDocument({ b, c, exact: values.exact === true, correction: values['no-correction'] !== true });
    const pairs: [string, Cell][] = [['method', r.method], ['statistic', r.statistic], ['p (two-sided)', fmtP(r.p)], ['b, c', `${b}, ${c}`]];
    if (r.reason) pairs.push(['undefined because', r.reason]);
    return { json, text: keyValues(pairs) };
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
    const { result: r, json, warnings } = iccDocument({ data: rows, confidence }, { data: source('data', path) });
    warn('icc', warnings);
    const forms = ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] as const;
    const text = table(
      ['form', 'ICC', 'F', 'df1', 'df2', 'p', ciLabel(confidence)],
      forms.map((f) => [f, r[f].value, r[f].F, r[f].df1, r[f].df2, fmtP(r[f].p), fmtCi(r[f].ci)]),
    );
    return { json, text: `${text}\n${r.subjects} subjects × ${r.raters} raters${r.reason ? ` — ${r.reason}` : ''}` };
  },
};

export default [kappaCommand, fleissCommand, alphaCommand, wilsonCommand, corrCommand, mcnemarCommand, iccCommand];
