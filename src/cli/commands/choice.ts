import type { Command } from '../command.ts';
import { readText, requireFlag } from '../io.ts';
import { table, type Cell } from '../table.ts';
import type { ChoiceScores, ScoredResponse } from '../../scoring/choice/score.ts';

function sliceTable(title: string, scores: ChoiceScores, pick: 'byCategory' | 'byDomain'): string | null {
  const rows: Cell[][] = [];
  for (const [model, m] of Object.entries(scores.models)) {
    for (const [name, s] of Object.entries(m[pick])) rows.push([model, name, s.n, s.accuracy, s.invalidRate]);
  }
  return rows.length === 0 ? null : `${title}\n${table(['model', title.toLowerCase(), 'n', 'accuracy', 'invalid'], rows)}`;
}

function render(scores: ChoiceScores, details: ScoredResponse[] | null): string {
  const models = Object.entries(scores.models);
  const parts = [
    table(
      ['model', 'n', 'correct', 'accuracy', 'invalid', 'invalidRate', 'missing', 'categoryMean'],
      models.map(([name, m]) => [name, m.n, m.correct, m.accuracy, m.invalid, m.invalidRate, m.missing, m.unweightedCategoryMean]),
    ),
  ];
  const cat = sliceTable('Category', scores, 'byCategory');
  const dom = sliceTable('Domain', scores, 'byDomain');
  if (cat) parts.push('', cat);
  if (dom) parts.push('', dom);
  if (details) {
    parts.push(
      '',
      table(
        ['model', 'id', 'expected', 'choice', 'source', 'reason'],
        details.map((d) => [d.model, d.id, d.expected, d.extraction.choice, d.extraction.source, d.extraction.reason]),
      ),
    );
  }
  return parts.join('\n');
}

const scoreChoiceCommand: Command = {
  path: ['score', 'choice'],
  summary: 'Score multiple-choice responses against a key: accuracy, invalid rate, per category and domain',
  usage: '--key K.jsonl --responses A.jsonl [--details]',
  options: {
    key: { type: 'string' },
    responses: { type: 'string' },
    details: { type: 'boolean' },
  },
  async run({ values }) {
    const keyPath = requireFlag(values, 'key');
    const responsesPath = requireFlag(values, 'responses');
    const { parseKey, parseResponses } = await import('../../scoring/choice/rows.ts');
    const { scoreChoices, scoreResponses } = await import('../../scoring/choice/score.ts');
    const keyName = `key ${keyPath}`;
    const responsesName = `responses ${responsesPath}`;
    const key = parseKey(readText(keyPath, 'key'), keyName);
    const responses = parseResponses(readText(responsesPath, 'responses'), responsesName);
    const scores = scoreChoices(key, responses, { keyName, responsesName });
    const details = values.details === true ? scoreResponses(key, responses, { keyName, responsesName }) : null;
    const json = details
      ? {
          ...scores,
          responses: details.map((d) => ({
            model: d.model,
            id: d.id,
            expected: d.expected,
            choice: d.extraction.choice,
            status: d.extraction.status,
            correct: d.correct,
            ...(d.extraction.source ? { source: d.extraction.source } : {}),
            ...(d.extraction.reason ? { reason: d.extraction.reason } : {}),
          })),
        }
      : scores;
    return { json, text: render(scores, details) };
  },
};

export default scoreChoiceCommand;
