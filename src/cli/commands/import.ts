import type { Command, CommandContext } from '../command.ts';
import { badInput } from '../../domain/errors.ts';
import { withDatabase } from '../database.ts';
import { fieldFlag } from '../io.ts';
import { table } from '../table.ts';

/**
 * `assay import …`: load files into the configured database (migrating it first). Every import is one
 * transaction: a bad line or field is reported as "file:line: field: problem" (exit 2) and nothing is
 * written.
 */

function needPaths(ctx: CommandContext, what: string): string[] {
  if (ctx.positionals.length === 0) throw badInput(`missing ${what} (a file or a directory)`);
  return ctx.positionals;
}

function oneFile(ctx: CommandContext, what: string): string {
  if (ctx.positionals.length !== 1) throw badInput(`expected exactly one ${what} file, got ${ctx.positionals.length}`);
  return ctx.positionals[0]!;
}

/** A text flag, or undefined when left out (an empty one never gets here: cli/main.ts refuses it for every command). */
const str = (values: Record<string, unknown>, name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);

const rubricsCmd: Command = {
  path: ['import', 'rubrics'],
  summary: 'Import rubric files (YAML/JSON, or JSONL of rubrics); edited rubrics become new versions',
  usage: 'DIR|FILE...',
  options: {},
  positionals: true,
  async run(ctx) {
    const { readImportFiles, RUBRIC_FILES } = await import('../../services/imports.ts');
    const files = needPaths(ctx, 'rubric path').flatMap((p) => readImportFiles(p, RUBRIC_FILES));
    const { importRubrics } = await import('../../services/rubrics.ts');
    const r = await withDatabase((db) => importRubrics(db, files));
    const text = [
      table(['rubric', 'version', 'outcome'], r.rubrics.map((x) => [x.slug, x.version, x.outcome])),
      '',
      `${r.created} created, ${r.versioned} new versions, ${r.unchanged} unchanged`,
    ].join('\n');
    return { json: r, text };
  },
};

const puzzlesCmd: Command = {
  path: ['import', 'puzzles'],
  summary: 'Import puzzles: grid truth {rows, cols, layout, edges?} plus id, picture, sizeBucket, rubric; changing stored ones needs --replace',
  usage: 'DIR|FILE... [--replace]',
  options: { replace: { type: 'boolean' } },
  positionals: true,
  async run(ctx) {
    const { readImportFiles, PUZZLE_FILES } = await import('../../services/imports.ts');
    const files = needPaths(ctx, 'puzzle path').flatMap((p) => readImportFiles(p, PUZZLE_FILES));
    const { importPuzzles } = await import('../../services/puzzles.ts');
    const r = await withDatabase((db) => importPuzzles(db, files, { replace: ctx.values.replace === true }));
    return { json: r, text: `${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged` };
  },
};

const TASKS = ['describe', 'assemble', 'describe-then-solve', 'choice'] as const;

const answersCmd: Command = {
  path: ['import', 'answers'],
  summary: "Import a run of answers (JSONL, or another tool's output with --from); assemble answers are scored against their puzzles",
  usage: 'RUN.jsonl [--run NAME] [--model M] [--effort E] [--tag T]... [--task KIND] [--no-score] | FILE --from inspect|promptfoo|lm-eval|vlmevalkit --task KIND (--rubric R | --puzzle P) [--model M] [--run NAME] [--filter NAME (lm-eval)]',
  options: {
    from: { type: 'string' },
    filter: { type: 'string' },
    rubric: { type: 'string' },
    puzzle: { type: 'string' },
    run: { type: 'string' },
    model: { type: 'string' },
    effort: { type: 'string' },
    tag: { type: 'string', multiple: true },
    task: { type: 'string' },
    'no-score': { type: 'boolean' },
  },
  positionals: true,
  async run(ctx) {
    const path = oneFile(ctx, 'answers');
    const task = str(ctx.values, 'task');
    if (task !== undefined && !(TASKS as readonly string[]).includes(task)) throw badInput(`--task must be one of ${TASKS.join('|')}, got '${task}'`);
    const from = str(ctx.values, 'from');
    if (from !== undefined) return importForeign(ctx, path, from, task);
    if (ctx.values.filter !== undefined) throw badInput('--filter goes with --from lm-eval (the filter of an lm-eval samples file whose lines are the answers)');
    if (ctx.values.rubric !== undefined || ctx.values.puzzle !== undefined) throw badInput('--rubric and --puzzle go with --from (a JSONL row names its own rubric or puzzle)');
    const { readImportFile } = await import('../../services/imports.ts');
    const file = readImportFile(path);
    const { importAnswersJsonl } = await import('../../services/answers.ts');
    const tags = Array.isArray(ctx.values.tag) ? ctx.values.tag.map(String) : undefined;
    const r = await withDatabase((db) =>
      importAnswersJsonl(db, file, {
        run: str(ctx.values, 'run'),
        model: str(ctx.values, 'model'),
        effort: str(ctx.values, 'effort'),
        tags,
        task: task as (typeof TASKS)[number] | undefined,
        score: ctx.values['no-score'] !== true,
      }),
    );
    const { answerIds, ...doc } = r;
    const text = [
      table(['run', 'model', 'new run', 'imported', 'unchanged'], r.runs.map((x) => [x.name, x.model, x.created ? 'yes' : 'no', x.imported, x.unchanged])),
      '',
      `${r.imported} answers imported, ${r.unchanged} unchanged, ${r.scored} assemblies scored`,
    ].join('\n');
    return { json: doc, text };
  },
};

/** `--from FORMAT`: another tool's file (src/services/import-formats/), its scores as imported grades. */
async function importForeign(ctx: CommandContext, path: string, from: string, task: string | undefined) {
  const { FOREIGN_FORMATS } = await import('../../services/import-formats/index.ts');
  if (!(FOREIGN_FORMATS as readonly string[]).includes(from)) throw badInput(`--from must be one of ${FOREIGN_FORMATS.join('|')}, got '${from}'`);
  if (task === undefined) throw badInput(`--from ${from} needs --task (${TASKS.join('|')}): the file does not say which assay task its answers are`);
  if (ctx.values.filter !== undefined && from !== 'lm-eval') throw badInput(`--filter goes with --from lm-eval (the filter of an lm-eval samples file whose lines are the answers), not --from ${from}`);
  const { LmEvalFilterSchema } = await import('../../services/import-formats/lm-eval.ts');
  const filter = fieldFlag(ctx.values, 'filter', LmEvalFilterSchema);
  const { readImportFile } = await import('../../services/imports.ts');
  const file = readImportFile(path);
  const { importForeignAnswers } = await import('../../services/import-foreign.ts');
  const tags = Array.isArray(ctx.values.tag) ? ctx.values.tag.map(String) : undefined;
  const r = await withDatabase((db) =>
    importForeignAnswers(db, file, from as (typeof FOREIGN_FORMATS)[number], {
      run: str(ctx.values, 'run'),
      model: str(ctx.values, 'model'),
      effort: str(ctx.values, 'effort'),
      tags,
      task: task as (typeof TASKS)[number],
      score: ctx.values['no-score'] !== true,
      rubric: str(ctx.values, 'rubric'),
      puzzle: str(ctx.values, 'puzzle'),
      filter,
    }),
  );
  const { answerIds, ...doc } = r;
  const lines = [
    table(['run', 'model', 'new run', 'imported', 'unchanged'], r.runs.map((x) => [x.name, x.model, x.created ? 'yes' : 'no', x.imported, x.unchanged])),
    '',
    `${r.imported} answers imported, ${r.unchanged} unchanged, ${r.scored} assemblies scored; ${r.grades.stored} ${from} scores stored as grades${r.grades.judges.length ? ` (judge ${r.grades.judges.join(', ')})` : ''}, ${r.grades.unchanged} unchanged`,
  ];
  if (r.skipped.length) lines.push(`skipped ${r.skipped.length}:`, ...r.skipped.map((s) => `  ${s.where}: ${s.reason}`));
  return { json: doc, text: lines.join('\n') };
}

const labelsCmd: Command = {
  path: ['import', 'labels'],
  summary: 'Import labels (JSONL or CSV): answer, run?, item?, rater, kind?, label; changing stored labels needs --replace',
  usage: 'FILE [--run NAME] [--replace]',
  options: { run: { type: 'string' }, replace: { type: 'boolean' } },
  positionals: true,
  async run(ctx) {
    const path = oneFile(ctx, 'labels');
    const { readImportFile } = await import('../../services/imports.ts');
    const file = readImportFile(path);
    const { importLabels } = await import('../../services/import-labels.ts');
    const r = await withDatabase((db) => importLabels(db, file, { run: str(ctx.values, 'run'), replace: ctx.values.replace === true }));
    return { json: r, text: `${r.inserted} labels added, ${r.replaced} replaced, ${r.unchanged} unchanged (run${r.runs.length === 1 ? '' : 's'} ${r.runs.join(', ')})` };
  },
};

const exportCmd: Command = {
  path: ['import', 'export'],
  summary: 'Import a run written by assay export (rubric versions, puzzles, answers, every grade with its judge configuration, labels, campaigns)',
  usage: 'DIR',
  options: {},
  positionals: true,
  async run(ctx) {
    const dir = oneFile(ctx, 'export directory');
    const { importRunExport } = await import('../../services/import-run-export.ts');
    const r = await withDatabase((db) => importRunExport(db, dir));
    const text = `run ${r.run}: ${r.answers.imported} answers imported (${r.answers.unchanged} unchanged), ${r.grades.stored} grades (${r.grades.unchanged} unchanged), ${r.labels.inserted} labels (${r.labels.unchanged} unchanged), ${r.assemblyScores.stored} assembly scores as exported (${r.assemblyScores.unchanged} unchanged), ${r.campaigns.created} campaigns added (${r.campaigns.queued} answers queued in held ones), ${r.rubrics.created} rubric versions and ${r.puzzles.created} puzzles added`;
    return { json: r, text };
  },
};

const examplesCmd: Command = {
  path: ['import', 'examples'],
  summary: 'Load the bundled examples (what npm start seeds) into an empty database',
  usage: '',
  options: {},
  async run() {
    const { seedExamples } = await import('../../services/seed.ts');
    const r = await withDatabase((db) => seedExamples(db));
    const filled = `${r.grades} grades by the lexical baseline judge (offline word overlap, not an LLM), ${r.labels} labels`;
    const text = r.seeded
      ? `seeded ${r.rubrics} rubrics, ${r.puzzles} puzzles, ${r.runs} runs, ${r.answers} answers, ${r.assemblyScores} assembly scores, ${filled}`
      : r.grades || r.labels
        ? `the database is not empty: completed the examples with ${filled}`
        : 'the database is not empty: nothing seeded';
    return { json: r, text };
  },
};

export default [rubricsCmd, puzzlesCmd, answersCmd, labelsCmd, exportCmd, examplesCmd];
