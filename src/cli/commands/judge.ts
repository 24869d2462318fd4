import type { Command } from '../command.ts';
import { badInput } from '../../domain/errors.ts';
import type { JudgeCompareReport } from '../../services/judge-compare.ts';
import type { GradedJudgeCompareReport } from '../../services/judge-compare-grade.ts';
import { numberFlag, requireFlag } from '../io.ts';
import { costText } from '../progress-bar.ts';
import { keyValues, table, type Cell } from '../table.ts';

const interval = (ci: [number, number] | null): Cell => (ci ? `[${ci[0].toFixed(4)}, ${ci[1].toFixed(4)}]` : null);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What --grade graded, per judge (nothing without --grade). */
function gradingLines(r: JudgeCompareReport & Partial<Pick<GradedJudgeCompareReport, 'grading'>>): string[] {
  if (!r.grading) return [];
  return [r.grading.a, r.grading.b].map(
    (g) => `graded ${g.judge}: ${plural(g.needed, 'answer')} needed a grade; ${g.done} graded in all, ${g.failed} failed, ${g.remaining} remaining; ${plural(g.calls, 'provider call')}, ${costText(g)}`,
  );
}

/** The answers each judge has no final grade of: left out of the comparison, said so (and how to grade them). */
function ungradedLines(r: JudgeCompareReport): string[] {
  const { a, b } = r.ungraded;
  if (a === 0 && b === 0) return [];
  const who = [[r.judgeA, a], [r.judgeB, b]] as const;
  return [
    `Left out for want of a grade (answers of the run without a final grade): ${who.map(([j, n]) => `${j} ${n}`).join(', ')}; add --grade to grade them first`,
  ];
}

/** Answers either judge saw as examples (anchored judges, docs/judges.md): left out, said so. */
const exampleLines = (r: JudgeCompareReport): string[] =>
  r.excludedExamples > 0 ? [`Left out as examples (answers of the run either judge was shown with the people's verdicts, or copies of them): ${r.excludedExamples}`] : [];

/** The readable report: the two kappas and their difference, the dropped pairs, flips per item, F1 moves. */
function formatJudgeCompare(r: JudgeCompareReport): string {
  const judges = table(
    ['judge', 'agreement', 'kappa', 'kappa 95% CI', 'weighted kappa', 'weighted 95% CI'],
    [r.a, r.b].map((j) => [j.judge, j.agreement, j.kappa.kappa, interval(j.kappa.ci), j.weightedKappa.kappa, interval(j.weightedKappa.ci)]),
  );
  const diff = table(
    ['B − A', 'estimate', `paired bootstrap ${Math.round(r.bootstrap.confidence * 100)}% CI`, 'resamples'],
    [
      ['kappa', r.difference.kappa.estimate, interval(r.difference.kappa.ci), r.difference.kappa.resamples],
      ['weighted kappa', r.difference.weightedKappa.estimate, interval(r.difference.weightedKappa.ci), r.difference.weightedKappa.resamples],
    ],
  );
  const summary = keyValues([
    ['run', r.run],
    ['A', r.judgeA],
    ['B', r.judgeB],
    ['units (answer × item)', r.units],
    ['answers', r.answers],
    ['human-labelled pairs', r.humanLabelledPairs],
    ['dropped', r.dropped.total],
    ['bootstrap', `seed ${r.bootstrap.seed}, ${r.bootstrap.resamples} resamples of answers`],
    ['ungraded answers', `${r.judgeA} ${r.ungraded.a}, ${r.judgeB} ${r.ungraded.b}`],
  ]);
  const dropped = r.dropped.byReason.map((d) => `  ${d.count}  ${d.description}`);
  // Rubrics share item ids ('sky' in ~25 ImageInWords rubrics): a row is one rubric's item, named by both.
  const rubric = r.flips.items.some((i) => i.rubric !== null);
  const flips = table(
    [rubric ? 'rubric/item' : 'item', 'units', 'flips', 'toward human', 'away from human', 'neither', 'A→B'],
    [
      ...r.flips.items.map((i) => [rubric ? `${i.rubric ?? '—'}/${i.item}` : i.item, i.units, i.flips, i.towardHuman, i.awayFromHuman, i.neither, i.transitions.map((t) => `${t.from}→${t.to} ${t.count}`).join(', ')]),
      ['all', r.flips.units, r.flips.flips, r.flips.towardHuman, r.flips.awayFromHuman, r.flips.neither, ''],
    ] as Cell[][],
  );
  const moves = table(
    ['answer', 'F1 A', 'F1 B', 'B − A', 'human-labelled'],
    r.f1Moves.top.map((m) => [m.answer, m.f1A, m.f1B, m.delta, m.humanLabelled ? 'yes' : 'no']),
  );
  const notes = [...gradingLines(r), ...ungradedLines(r), ...exampleLines(r), ...r.notes];
  return [
    ...(notes.length > 0 ? [...notes, ''] : []),
    summary,
    ...(dropped.length > 0 ? ['', 'Dropped pairs:', ...dropped] : []),
    '',
    'Against the human labels:',
    judges,
    '',
    diff,
    '',
    'Verdict flips A→B per item:',
    flips,
    '',
    `Answers whose F1 moved most (${r.f1Moves.top.length} of ${r.f1Moves.graded} graded ok by both):`,
    moves,
  ].join('\n');
}

const compare: Command = {
  path: ['judge', 'compare'],
  summary: "Compare two judges' grades of a run against its human labels (--grade: grade what is missing first): kappas, paired bootstrap of the difference, flips, F1 moves",
  usage: '--run R --judge A --judge B [--grade [--concurrency K]] [--top N] [--seed S] [--resamples N]',
  options: {
    run: { type: 'string' },
    judge: { type: 'string', multiple: true },
    grade: { type: 'boolean' },
    concurrency: { type: 'string' },
    top: { type: 'string' },
    seed: { type: 'string' },
    resamples: { type: 'string' },
  },
  async run({ values }) {
    const run = requireFlag(values, 'run');
    const judges = (values.judge ?? []) as string[];
    if (judges.length !== 2) throw badInput(`give exactly two judges (--judge A --judge B), got ${judges.length}`);
    const [a, b] = judges as [string, string];
    if (a === '' || b === '') throw badInput('--judge needs a judge id');
    if (a === b) throw badInput(`give two different judges (both are '${a}')`);
    const q: Parameters<typeof import('../../services/judge-compare.ts').judgeCompare>[1] = { run, a, b };
    const top = numberFlag(values, 'top', { integer: true, min: 0, max: 1000 });
    const seed = numberFlag(values, 'seed', { integer: true, min: 0, max: 2 ** 32 - 1 });
    const resamples = numberFlag(values, 'resamples', { integer: true, min: 1, max: 100_000 });
    if (top !== undefined) q.top = top;
    if (seed !== undefined) q.seed = seed;
    if (resamples !== undefined) q.resamples = resamples;
    const concurrency = numberFlag(values, 'concurrency', { integer: true, min: 1, max: 512 });
    if (concurrency !== undefined && !values.grade) throw badInput('--concurrency goes with --grade (nothing is graded without it)');
    const { withDatabase } = await import('../database.ts');
    if (!values.grade) {
      const { judgeCompare } = await import('../../services/judge-compare.ts');
      const report = await withDatabase((database) => judgeCompare(database, q));
      return { json: { ...report, grading: null }, text: formatJudgeCompare(report) };
    }
    // --grade: `assay run`'s grading for each judge (needs-grading rule), progress on stderr, then the comparison.
    const { loadConfig, providerKeys } = await import('../../config.ts');
    const { gradeAndCompareJudges } = await import('../../services/judge-compare-grade.ts');
    const { progressBar } = await import('../progress-bar.ts');
    const config = loadConfig(process.env);
    const keys = providerKeys(config);
    const bars = { a: progressBar(process.stderr), b: progressBar(process.stderr) };
    const shown: { judge: 'a' | 'b' | null } = { judge: null };
    const report = await withDatabase((database) =>
      gradeAndCompareJudges(database, q, {
        keys,
        jobs: config.jobs,
        ...(concurrency !== undefined ? { concurrency } : {}),
        onProgress(which, p) {
          if (shown.judge !== which) {
            if (shown.judge) bars[shown.judge].end();
            shown.judge = which;
            process.stderr.write(`grading run ${p.run.name} with judge ${p.judge.slug}\n`);
          }
          bars[which].update(p);
        },
      }),
    );
    if (shown.judge) bars[shown.judge].end();
    const incomplete = [report.grading.a, report.grading.b].some((g) => g.failed > 0 || g.remaining > 0);
    return { json: report, text: formatJudgeCompare(report), exitCode: incomplete ? 1 : 0 };
  },
};

export default [compare];
