import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Database } from '../../src/db/client.ts';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import type { RecordedCall, Step } from '../fake-provider/server.ts';
import { FIXTURES } from '../helpers/cli.ts';

/**
 * The anchored-judge case (test/judges/anchored-judges*.test.ts): run `anch` on the farmyard rubric,
 * answers e1, e2 (the judge's examples) and x1–x3, human labels of items barn and cow-in-barn, and what
 * the fake judge answers for each. Without e1 and e2 the judge's kappa against the humans is 13/25.
 */
export const ITEMS = ['barn', 'cow-in-barn'] as const;
// Human labels (answer, item, rater, verdict). e1 and e2 are the judge's examples; e1's barn is a tie
// (correct vs partial) that the tie rule settles as partial, the verdict worth fewer points.
export const HUMANS: Array<[string, string, string, string]> = [
  ['e1', 'barn', 'h1', 'correct'],
  ['e1', 'barn', 'h2', 'partial'],
  ['e1', 'cow-in-barn', 'h1', 'incorrect'],
  ['e2', 'barn', 'h1', 'incorrect'],
  ['x1', 'barn', 'h1', 'correct'],
  ['x1', 'cow-in-barn', 'h1', 'missing'],
  ['x2', 'barn', 'h1', 'partial'],
  ['x2', 'cow-in-barn', 'h1', 'correct'],
  ['x3', 'barn', 'h1', 'incorrect'],
  ['x3', 'cow-in-barn', 'h1', 'missing'],
];
// What the fake judge answers, per answer (by its text).
export const JUDGE: Record<string, [string, string]> = {
  e1: ['correct', 'correct'],
  e2: ['correct', 'missing'],
  x1: ['correct', 'missing'],
  x2: ['correct', 'correct'],
  x3: ['incorrect', 'correct'],
};
export const textOf = (id: string) => `Description ${id}: a red barn ${id === 'e1' ? 'with <b>bold</b> claims' : 'on the left'}.`;

export async function seedAnchored(db: Database): Promise<Map<string, number>> {
  const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
  await importParsedRubrics(db, [rubric]);
  await importAnswersJsonl(db, {
    path: 'anch.jsonl',
    content: Object.keys(JUDGE).map((id) => JSON.stringify({ id, run: 'anch', model: 'M', task: 'describe', rubric: rubric.id, text: textOf(id) })).join('\n'),
  });
  const r = await db.execute(`select a.external_id, a.id from answers a join runs r on r.id = a.run_id where r.name = 'anch'`);
  const ids = new Map(r.rows.map((x) => [String(x.external_id), Number(x.id)]));
  for (const [answer, item, rater, label] of HUMANS) {
    await db.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, $3, 'human', $4)`, [ids.get(answer), item, rater, label]);
  }
  return ids;
}

/** The user turn's blocks of an Anthropic request: [static (cached), answer]. */
export const blocks = (call: RecordedCall): Array<{ text: string; cache_control?: unknown }> => call.body.messages[0].content;


/** The fake's script: the scripted verdicts of whichever answer the request grades. */
export function anchoredScript(call: RecordedCall): Step {
  const answerText: string = blocks(call).at(-1)!.text;
  const id = Object.keys(JUDGE).find((k) => answerText.includes(`Description ${k}:`))!;
  return { kind: 'verdict-set', verdicts: Object.fromEntries(ITEMS.map((it, i) => [it, JUDGE[id]![i]])) as never };
}
