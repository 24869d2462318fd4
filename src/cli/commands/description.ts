import { badInput } from '../../domain/errors.ts';
import type { Command } from '../command.ts';
import { choiceFlag, readText, requireFlag } from '../io.ts';
import { readStructured } from '../read-structured.ts';
import { keyValues, table, type Cell } from '../table.ts';
import type { DescriptionScore } from '../../scoring/description/score.ts';

/** A verdicts file with one verdict set per line. */
const BATCH_FILE = /\.(jsonl|ndjson)$/i;

const yesNo = (b: boolean | null): Cell => (b === null ? null : b ? 'yes' : 'no');
const gridText = (g: { rows: number; cols: number } | null | undefined): Cell => (g ? `${g.rows} × ${g.cols}` : null);

function render(s: DescriptionScore, title: string, policy: string, truth: Record<string, unknown> | undefined, metaNote: string | null): string {
  const c = s.claims;
  const parts = [
    title,
    '',
    keyValues([
      ['completeness', `${s.completeness.toFixed(4)}  (${s.points.earned} of ${s.points.possible} weighted points)`],
      ['correctness', `${s.correctness.toFixed(4)}  (${c.true} true of ${c.total} claims: ${c.false} false, ${c.unverifiable} unverifiable ${policy === 'exclude' ? 'excluded' : 'counted'})`],
      ['f1', s.f1],
    ]),
    '',
    table(
      ['item', 'weight', 'verdict', 'points'],
      s.items.map((it) => [it.id, it.weight, it.verdict, it.points]),
      2,
    ),
  ];
  if (s.meta) {
    const m = s.meta;
    const t = (truth ?? {}) as { orientation?: string; grid?: { rows: number; cols: number }; pieces?: number };
    parts.push(
      '',
      table(
        ['meta', 'stated', 'truth', 'correct'],
        [
          ['orientation', m.orientation.stated, t.orientation, yesNo(m.orientation.correct)],
          ['grid', gridText(m.grid.stated), gridText(t.grid), m.grid.transposed ? 'no (transposed)' : yesNo(m.grid.correct)],
          [
            'pieces',
            m.pieceCount.stated,
            t.pieces ?? (t.grid ? t.grid.rows * t.grid.cols : null),
            m.pieceCount.error === null ? null : `error ${m.pieceCount.error.toFixed(4)}`,
          ],
        ],
      ),
    );
  }
  if (metaNote) parts.push('', metaNote);
  return parts.join('\n');
}

const scoreDescriptionCommand: Command = {
  path: ['score', 'description'],
  summary: 'Score a description from rubric verdicts: completeness, correctness, F1 (and meta with --answer)',
  usage: '--rubric R.yaml --verdicts V.json [--answer A.txt] | --verdicts V.jsonl (one set per line, with "id") [--unverifiable count|exclude]',
  options: {
    rubric: { type: 'string' },
    verdicts: { type: 'string' },
    answer: { type: 'string' },
    unverifiable: { type: 'string' },
  },
  async run({ values }) {
    const rubricPath = requireFlag(values, 'rubric');
    const verdictsPath = requireFlag(values, 'verdicts');
    const policy = choiceFlag(values, 'unverifiable', ['count', 'exclude'] as const, 'count');
    const answerPath = typeof values.answer === 'string' ? values.answer : undefined;
    const { parseRubric, parseVerdicts } = await import('../../scoring/description/rubric.ts');
    const { scoreDescription } = await import('../../scoring/description/score.ts');

    const rubric = parseRubric(readStructured(rubricPath, 'rubric'), `rubric ${rubricPath}`);
    if (BATCH_FILE.test(verdictsPath)) {
      // The batch form: one verdict set per line (with its id, and its answer text for meta), one JSON line out for each.
      if (answerPath !== undefined) throw badInput('--answer goes with one verdicts file; in a .jsonl batch give each line its own "answer"');
      const { parseVerdictsJsonl, scoreDescriptionBatch } = await import('../../scoring/description/batch.ts');
      const name = `verdicts ${verdictsPath}`;
      const { lines, aggregate } = scoreDescriptionBatch(rubric, parseVerdictsJsonl(readText(verdictsPath, 'verdicts'), name), { unverifiable: policy, name });
      return { json: null, jsonLines: [...lines, { aggregate }] };
    }
    const verdicts = parseVerdicts(readStructured(verdictsPath, 'verdicts'), `verdicts ${verdictsPath}`);
    const answer = answerPath === undefined ? undefined : readText(answerPath, 'answer');
    const s = scoreDescription(rubric, verdicts, { unverifiable: policy, answer, where: `verdicts ${verdictsPath}` });

    const json: Record<string, unknown> = {
      completeness: s.completeness,
      correctness: s.correctness,
      f1: s.f1,
      points: s.points,
      claims: s.claims,
    };
    if (s.meta) json.meta = s.meta;
    const metaNote =
      answer !== undefined && !rubric.truth ? `meta: not scored (rubric ${rubric.id} has no truth section)` : null;
    return { json, text: render(s, `${rubric.id} — ${rubric.title}`, policy, rubric.truth, metaNote) };
  },
};

export default scoreDescriptionCommand;
