import { badInput } from '../../domain/errors.ts';
import { MAX_GRID_SIDE } from '../../domain/limits.ts';
import { parseGivenIds, parseGridTruth } from '../../domain/grid.ts';
import {
  DEFAULT_SEED,
  defaultTrials,
  gridBaseline,
  type GridScore,
  scoreGrid,
  shapeCompatibilityExact,
} from '../../scoring/grid/index.ts';
import type { Command } from '../command.ts';
import { numberFlag, readJson, readText, requireFlag } from '../io.ts';
import { type Cell, keyValues, table } from '../table.ts';

/** `assay score grid` and `assay baseline grid` (design §2.2, §3). */

const score: Command = {
  path: ['score', 'grid'],
  summary: 'Score a grid assembly answer against the true layout (direct, neighbour, proximity, …)',
  usage: '--truth T.json --answer A.{txt,json} [--given G.json] | --answers A.jsonl (lines {"id","answer","given"?})',
  options: { truth: { type: 'string' }, answer: { type: 'string' }, answers: { type: 'string' }, given: { type: 'string' } },
  async run({ values }) {
    const truthPath = requireFlag(values, 'truth');
    const batchPath = typeof values.answers === 'string' ? values.answers : undefined;
    if (batchPath !== undefined && values.answer !== undefined) throw badInput('give one of --answer A.txt (one answer) or --answers A.jsonl (a batch)');
    if (batchPath !== undefined && values.given !== undefined) throw badInput('--given goes with --answer; in a .jsonl batch give each line its own "given"');
    const answerPath = batchPath === undefined ? requireFlag(values, 'answer') : '';
    const truth = parseGridTruth(readJson(truthPath, 'truth'), `truth ${truthPath}`);
    if (batchPath !== undefined) {
      // The batch form: one JSON line out per answer, then the aggregate.
      const { parseGridAnswersJsonl, scoreGridBatch } = await import('../../scoring/grid/batch.ts');
      const rows = parseGridAnswersJsonl(readText(batchPath, 'answers'), `answers ${batchPath}`, truth);
      const { lines, aggregate } = scoreGridBatch(truth, rows);
      return { json: null, jsonLines: [...lines, { aggregate }] };
    }
    const givenPath = typeof values.given === 'string' ? values.given : undefined;
    const given = givenPath ? parseGivenIds(readJson(givenPath, 'given'), truth, `given ${givenPath}`) : [];
    const answer = readText(answerPath, 'answer');
    const result = scoreGrid(truth, answer, { given });
    const random = gridBaseline(truth.rows, truth.cols);
    const shapeRandom = truth.edges ? shapeCompatibilityExact(truth.rows, truth.cols) : null;
    return { json: result, text: scoreText(result, random, shapeRandom, truth.rows, truth.cols, given.length) };
  },
};

function scoreText(
  s: GridScore,
  random: ReturnType<typeof gridBaseline>,
  shapeRandom: number | null,
  rows: number,
  cols: number,
  given: number,
): string {
  const rows_: Cell[][] = [
    ['direct', s.direct, random.direct],
    ['exactMatch', s.exactMatch, null],
    ['neighbour', s.neighbour, random.neighbour],
    ['adjacency', s.adjacency, random.adjacency],
    ['proximity', s.proximity, random.proximity],
    ['shapeCompatibility', s.shapeCompatibility, shapeRandom],
    ['byPosition.corner', s.byPosition.corner, s.byPosition.corner === null ? null : random.direct],
    ['byPosition.edge', s.byPosition.edge, s.byPosition.edge === null ? null : random.direct],
    ['byPosition.interior', s.byPosition.interior, s.byPosition.interior === null ? null : random.direct],
  ];
  const head = `${rows}×${cols} grid, answer ${s.status}${given > 0 ? `, ${given} pieces given (excluded from direct)` : ''}`;
  const problems = s.problems.length === 0 ? [] : ['', `problems (${s.problems.length}):`, ...s.problems.map((p) => `  - ${p}`)];
  return [head, '', table(['metric', 'score', 'random'], rows_), ...problems].join('\n');
}

/** Monte Carlo work bound (pieces × trials), about 20 s: beyond it the user should lower --trials. */
const MAX_WORK = 2e8;

const baseline: Command = {
  path: ['baseline', 'grid'],
  summary: 'Expected grid metrics of a uniformly random assembly (closed forms; shape fit by Monte Carlo)',
  usage: '--rows R --cols C [--shapes --trials N --seed S]',
  options: {
    rows: { type: 'string' },
    cols: { type: 'string' },
    shapes: { type: 'boolean' },
    trials: { type: 'string' },
    seed: { type: 'string' },
  },
  async run({ values }) {
    requireFlag(values, 'rows');
    requireFlag(values, 'cols');
    // The same side limit as puzzle truth: a larger grid is never scored, so its baseline means nothing.
    const rows = numberFlag(values, 'rows', { integer: true, min: 1, max: MAX_GRID_SIDE })!;
    const cols = numberFlag(values, 'cols', { integer: true, min: 1, max: MAX_GRID_SIDE })!;
    const shapes = values.shapes === true;
    const trialsFlag = numberFlag(values, 'trials', { integer: true, min: 1 });
    const seedFlag = numberFlag(values, 'seed', { integer: true, min: 0, max: 2 ** 32 - 1 });
    if (!shapes && (trialsFlag !== undefined || seedFlag !== undefined)) {
      throw badInput('--trials and --seed apply to the shape Monte Carlo: add --shapes');
    }
    const trials = trialsFlag ?? defaultTrials(rows, cols);
    const seed = seedFlag ?? DEFAULT_SEED;
    if (shapes && rows * cols * trials > MAX_WORK) {
      throw badInput(`--shapes on a ${rows}×${cols} grid with ${trials} trials is too much work (pieces × trials > ${MAX_WORK}); lower --trials`);
    }
    const result = gridBaseline(rows, cols, shapes ? { shapes, trials, seed } : {});
    const pairs: [string, Cell][] = Object.entries(result);
    const note = shapes
      ? `\n\nshapeCompatibility: Monte Carlo over ${trials} random jigsaws × permutations (seed ${seed}); exact ${formatExact(rows, cols)}`
      : '\n\nshapeCompatibility: add --shapes to estimate it';
    return { json: result, text: `random ${rows}×${cols} assembly\n\n${keyValues(pairs)}${note}` };
  },
};

const formatExact = (rows: number, cols: number) => {
  const v = shapeCompatibilityExact(rows, cols);
  return v === null ? '— (no internal edges)' : v.toFixed(4);
};

export default [score, baseline];
