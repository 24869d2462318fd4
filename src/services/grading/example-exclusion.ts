import type { Database } from '../../db/client.ts';
import type { LabelRow } from '../../domain/labels.ts';
import { inRubricSql } from './rubric-scope.ts';

/**
 * An anchored judge saw some answers with the people's verdicts (judge-examples.ts): its agreement with
 * the people on those answers measures nothing but copying, so they are left out of its calibration.
 * The rule, for calibration reports and judge compare alike: an answer is left out of judge J's figures
 * when a configuration of J (any judges row with J's id) was shown it as an example — for a panel, when
 * one of its members' configurations was; a copy of an example answer (its text, whitespace at either end
 * aside, against the same rubric, under any id in any run) is left out with it. The human labels stay (they are still people's labels: the
 * human–human ceiling keeps them); J's own labels of those answers are what is dropped.
 */

/** Per judge id, the answers it was shown as examples, keyed as the calibration rows key answers. */
export type ExampleAnswers = Map<string, Set<string>>;

export interface ExampleQuery {
  key: 'externalId' | 'answerId';
  run?: string;
  model?: string;
  /** Only answers of this rubric (slug; an assembly's its puzzle's), as a report filtered by rubric reads them. */
  rubric?: string;
  /** Judge ids (slugs); null or absent: every judge. */
  judges?: readonly string[] | null;
}

/**
 * The text as the prompt shows it (example-prompt.ts and prompt.ts trim it with String.prototype.trim):
 * white space at either end dropped, Unicode's too (no-break space, U+3000, U+FEFF, the separators), as
 * JavaScript's trim takes it (ECMAScript WhiteSpace and LineTerminator); ASCII alone missed a copy ending in
 * an ideographic space or opening with a BOM.
 */
const JS_TRIMMED = String.raw` \t\n\r\f\x0b\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
const TRIM = (x: string) => `btrim(${x}, E'${JS_TRIMMED}')`;

/**
 * The answer an entry of resolvedExamples names: by its run and its id in the run, which a run export
 * carries with the judges row (judges.json) — the database id stored beside them is the source database's,
 * another answer's wherever the row was imported. An entry without them (none are written so) by that id.
 */
const EXAMPLE_ANSWER = (e: string) =>
  `case when ${e} ? 'run' and ${e} ? 'answer'
        then (select a.id from answers a join runs r on r.id = a.run_id where r.name = ${e}->>'run' and a.external_id = ${e}->>'answer')
        else (${e}->>'answerId')::int end`;

const ARRAY = (x: string) => `case when jsonb_typeof(${x}) = 'array' then ${x} else '[]'::jsonb end`;

/** Only answers in scope (the run / model / rubric filters): the counts are of this report's answers. */
export async function exampleAnswers(database: Database, q: ExampleQuery): Promise<ExampleAnswers> {
  const out: ExampleAnswers = new Map();
  // First the examples themselves: most databases have no anchored judge, and every report page asks, so
  // the copies below (a text comparison over the examples' rubrics) are looked for only when there are some.
  // A judges row stores its resolved examples (judge-row.ts); a panel's row its members' config hashes.
  const listed = await database.execute(
    `with cfg as (select j.slug, j.config from judges j where $1::text[] is null or j.slug = any($1::text[])),
          listed as (
            select c.slug, e from cfg c cross join lateral jsonb_array_elements(${ARRAY(`c.config->'resolvedExamples'`)}) e
            union
            select c.slug, e from cfg c
              join judges m on m.config_hash in (select jsonb_array_elements_text(${ARRAY(`c.config->'memberHashes'`)}))
              cross join lateral jsonb_array_elements(${ARRAY(`m.config->'resolvedExamples'`)}) e)
     select coalesce(json_agg(distinct jsonb_build_array(l.slug, ${EXAMPLE_ANSWER('l.e')})), '[]')::text as j from listed l`,
    [q.judges ? [...q.judges] : null],
  );
  const examples = (JSON.parse(String(listed.rows[0]!.j)) as Array<[string, number | null]>).filter((x): x is [string, number] => x[1] !== null);
  if (examples.length === 0) return out;
  const answerKey = q.key === 'externalId' ? 'a.external_id' : 'a.id::text';
  // A copy of an example — the same text (whitespace at either end aside, as the prompt trims it) against
  // the same rubric, under another id or in another run — is the same item to the judge: shown too.
  const r = await database.execute(
    `with example as (select x->>0 as slug, (x->>1)::int as answer_id from jsonb_array_elements($3::jsonb) x),
          copy as (
            select ea.id as example_id, d.id as answer_id from answers ea
              join answers d on d.rubric_id = ea.rubric_id and ${TRIM('d.text')} = ${TRIM('ea.text')}
             where ea.id in (select answer_id from example)),
          shown as (
            select slug, answer_id from example
            union
            select x.slug, c.answer_id from example x join copy c on c.example_id = x.answer_id)
     select coalesce(json_agg(json_build_array(s.slug, ${answerKey}) order by s.slug, a.id), '[]')::text as j
       from shown s join answers a on a.id = s.answer_id join runs r on r.id = a.run_id
      where ($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)
        and ${inRubricSql('a', 4)}`,
    [q.run ?? null, q.model ?? null, JSON.stringify(examples), q.rubric ?? null],
  );
  for (const [slug, answer] of JSON.parse(String(r.rows[0]!.j)) as Array<[string, string]>) {
    const set = out.get(slug) ?? new Set<string>();
    set.add(answer);
    out.set(slug, set);
  }
  return out;
}

/** Removes, in place, each judge's labels of its own example answers. */
export function dropExampleRows(rows: LabelRow[], examples: ExampleAnswers): void {
  if (examples.size === 0) return;
  const kept = rows.filter((r) => !(r.kind === 'judge' && examples.get(r.rater)?.has(r.answer)));
  rows.splice(0, rows.length, ...kept);
}

/** How many answers are left out for these judges (each answer once, whichever judge saw it). */
export function excludedCount(examples: ExampleAnswers, judges: readonly string[]): number {
  return new Set(judges.flatMap((j) => [...(examples.get(j) ?? [])])).size;
}

/** Per judge id, how many of its example answers a report leaves out (judges without examples omitted). */
export function excludedByJudge(examples: ExampleAnswers): Record<string, number> {
  return Object.fromEntries([...examples].map(([slug, set]) => [slug, set.size]));
}
