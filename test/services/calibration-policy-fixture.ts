import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Database } from '../../src/db/client.ts';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { addErrorDescription } from './error-answer-fixture.ts';

/**
 * The numeric scale of calibration reads a judge's F1 under one unverifiable-claims policy (report-policy.ts),
 * as the other reports do, not each grade's stored F1 of the policy it was graded with. Judges `cnt` (graded
 * under count) and `exc` (under exclude) grade the same answers with the same completeness r and claims:
 *   n1: r 1,   claims T U      count: c 1/2 → f1 2/3   exclude: c 1   → f1 1
 *   n2: r 1/2, claims T T U F  count: c 1/2 → f1 1/2   exclude: c 2/3 → f1 4/7
 *   n3: r 4/5, claims T        both:  c 1   → f1 8/9
 *   n4: exc only, stored under exclude with no claims (a panel grade), f1 0.7: counts only under exclude.
 * Person h1 rates n1 0.5, n2 0.5, n3 1, n4 0.7. Under count both judges read 2/3, 1/2, 8/9 (n4 left out):
 * bias vs h1 = (1/6 + 0 − 1/9)/3 = 1/54, MAE = (1/6 + 1/9)/3 = 5/54, and the judges agree exactly (MAE 0).
 * Under exclude both read 1, 4/7, 8/9 (and exc's n4 0.7): cnt's MAE = (1/2 + 1/14 + 1/9)/3 = 43/189.
 */
const CLAIMS = { n1: 'TU', n2: 'TTUF', n3: 'T' } as const;
const R = { n1: 1, n2: 0.5, n3: 0.8 } as const;
const HUMAN = { n1: 0.5, n2: 0.5, n3: 1, n4: 0.7 } as const;
const V = { T: 'true', F: 'false', U: 'unverifiable' } as const;

function stored(r: number, claims: string, policy: 'count' | 'exclude') {
  const t = [...claims].filter((c) => c === 'T').length;
  const f = [...claims].filter((c) => c === 'F').length;
  const c = policy === 'count' ? t / claims.length : t / (t + f);
  return { correctness: c, f1: (2 * r * c) / (r + c) };
}

export async function seedPolicyCalibration(db: Database): Promise<void> {
  const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
  await importParsedRubrics(db, [rubric]);
  const content = Object.keys(HUMAN).map((id) => JSON.stringify({ id, run: 'pol', model: 'M', task: 'describe', rubric: rubric.id, text: `answer ${id}` }));
  await importAnswersJsonl(db, { path: 'pol.jsonl', content: content.join('\n') });
  for (const slug of ['cnt', 'exc']) await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ($1, 'lexical', 'lexical', '{}', $1)`, [slug]);
  const insert = (slug: string, answer: string, g: { completeness: number; correctness: number; f1: number; claims: unknown[]; meta: object }) =>
    db.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, claims, items, meta)
       select a.id, (select id from judges where slug = $1), (select id from rubric_versions limit 1), 'ok', $2, $3, $4, $5::jsonb, '[]'::jsonb, $6::jsonb
         from answers a join runs r on r.id = a.run_id where r.name = 'pol' and a.external_id = $7`,
      [slug, g.completeness, g.correctness, g.f1, JSON.stringify(g.claims), JSON.stringify(g.meta), answer],
    );
  for (const [answer, claims] of Object.entries(CLAIMS)) {
    const r = R[answer as keyof typeof R];
    const list = [...claims].map((c, i) => ({ text: `c${i}`, verdict: V[c as keyof typeof V] }));
    await insert('cnt', answer, { completeness: r, ...stored(r, claims, 'count'), claims: list, meta: {} });
    await insert('exc', answer, { completeness: r, ...stored(r, claims, 'exclude'), claims: list, meta: { unverifiable: 'exclude' } });
  }
  await insert('exc', 'n4', { completeness: 0.7, correctness: 0.7, f1: 0.7, claims: [], meta: { unverifiable: 'exclude', panel: {} } });
  for (const [answer, label] of Object.entries(HUMAN)) {
    await db.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label)
       select a.id, 'answer:numeric', 'h1', 'human', $2 from answers a join runs r on r.id = a.run_id where r.name = 'pol' and a.external_id = $1`,
      [answer, String(label)],
    );
  }
}


/** errorAnswersNote(1), written out: the fixture's tests assert the text, not the function's. */
export const ONE_ERROR_ANSWER_NOTE =
  "1 answer stored with status error (the model call failed) left out: there is no answer, so its grades (stored before grading skipped such answers, or imported) and people's labels compare nothing";

/**
 * The fixture plus n5, stored with status error (addErrorDescription), graded by cnt (F1 0.1, under count,
 * no claims) and rated 1 by h1: every figure above stays as it is when n5 is left out. Returns n5's id.
 */
export async function addGradedErrorAnswer(db: Database): Promise<number> {
  const n5 = await addErrorDescription(db, 'pol', 'n5', 'answer n5, cut');
  await db.execute(
    `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, claims, items, meta)
     values ($1, (select id from judges where slug = 'cnt'), (select id from rubric_versions limit 1), 'ok', 0.1, 0.1, 0.1, '[]', '[]', '{}')`,
    [n5],
  );
  await db.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, 'answer:numeric', 'h1', 'human', '1')`, [n5]);
  return n5;
}
