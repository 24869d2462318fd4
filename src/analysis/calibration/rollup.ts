import type { NormalLabel } from '../../domain/labels.ts';
import { pearson, spearman } from '../../stats/correlation.ts';
import { groupBy } from '../group.ts';
import { biasAndMae, corrStat as corr } from './compare.ts';
import type { AnswerRollup, LabelTable } from './types.ts';

/**
 * Answer-level scores rolled up from item labels, as completeness is (design §2.1): Σ w·points / Σ w
 * over the answer's items, w = 1 unless weights are given (by unit key, each of its own rubric's item:
 * weights.ts). Judge and humans are rolled up over the same items (those with both a judge label and a human consensus), so a tie or an unlabelled item changes
 * neither side. The judge that agrees item by item can still be biased in total; this is where it shows.
 */
export function rollUpAnswers(
  table: LabelTable,
  judge: string,
  consensus: ReadonlyMap<string, NormalLabel>,
  weights?: ReadonlyMap<string, number>,
): AnswerRollup {
  const mine = table.labels.get(judge)!;
  const answers: AnswerRollup['answers'] = [];
  for (const [answer, units] of groupBy(table.units, (u) => u.answer)) {
    let wSum = 0;
    let js = 0;
    let hs = 0;
    let count = 0;
    for (const u of units) {
      const j = mine.get(u.key);
      const h = consensus.get(u.key);
      if (!j || !h) continue;
      const w = u.item !== null && weights ? weights.get(u.key)! : 1;
      wSum += w;
      js += w * j.value;
      hs += w * h.value;
      count++;
    }
    if (count > 0) answers.push({ answer, model: units[0]!.model, judge: js / wSum, human: hs / wSum, units: count });
  }
  const x = answers.map((a) => a.judge);
  const y = answers.map((a) => a.human);
  const { bias, mae } = biasAndMae(x, y);
  const out: AnswerRollup = {
    n: answers.length,
    weighted: weights !== undefined,
    pearson: corr(pearson(x, y)),
    spearman: corr(spearman(x, y)),
    bias,
    mae,
    answers,
  };
  if (answers.length === 0) out.reason = 'no answer has a unit labelled by the judge and with a human consensus';
  return out;
}
