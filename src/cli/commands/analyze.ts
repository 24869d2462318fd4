import type { Command } from '../command.ts';
import { formatDescribeThenSolve } from '../format/describe-then-solve.ts';
import { numberFlag, readText, requireFlag } from '../io.ts';

const describeThenSolve: Command = {
  path: ['analyze', 'describe-then-solve'],
  summary: 'Answer accuracy given a correct description: P(P✓), P(A✓|P✓), P(A✓|P✗), P(A✓) with Wilson intervals',
  usage: '--input F.jsonl [--threshold τ] [--perception-threshold τ] [--answer-threshold τ]',
  options: {
    input: { type: 'string' },
    threshold: { type: 'string' },
    'perception-threshold': { type: 'string' },
    'answer-threshold': { type: 'string' },
  },
  async run({ values }) {
    const input = requireFlag(values, 'input');
    const threshold = numberFlag(values, 'threshold');
    const perceptionThreshold = numberFlag(values, 'perception-threshold');
    const answerThreshold = numberFlag(values, 'answer-threshold');
    const { describeThenSolve: analyse, parseDtsJsonl } = await import('../../analysis/describe-then-solve/index.ts');
    const rows = parseDtsJsonl(readText(input, 'input'), input);
    const report = analyse(rows, { threshold, perceptionThreshold, answerThreshold, source: input });
    return { json: report, text: formatDescribeThenSolve(report) };
  },
};

export default [describeThenSolve];
