import type { RubricWeights } from '../analysis/calibration/types.ts';
import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import { findRun } from '../services/grading/run-ref.ts';
import { isNewestBySlug } from '../services/grading/newest-grade.ts';

/**
 * `assay calibrate --run R --judge J --rubric F`: F's weights make the roll-up the completeness of J's
 * grades only when F weighs every item as the rubric version those grades were graded under. A file
 * edited since (or a version stored since, the file not) would roll up silently otherwise: refused,
 * naming the first item that differs. Read per version of the judges' newest ok grades of the
 * calibration's answers (the grades it reads; an answer no one labelled is not rolled up), so a run
 * graded under two versions that weigh differently has no one file to give. Only the files whose
 * rubric the grades are of are checked here; a rubric of no answer is said in the notes, and an answer
 * of a rubric not given is refused, by the analysis (analysis/calibration/weights.ts).
 */
export async function checkStoredWeights(
  database: Database,
  q: { run: string; judges: readonly string[]; judge: string; answers: readonly string[] },
  files: ReadonlyArray<RubricWeights & { path: string }>,
): Promise<void> {
  if (files.length === 0) return;
  const run = await findRun(database, q.run);
  const r = await database.execute(
    `select coalesce(json_agg(json_build_array(x.slug, x.version, x.item_key, x.weight) order by x.slug, x.version, x.position), '[]')::text as j
       from (select distinct rb.slug, rv.version, ri.item_key, ri.weight, ri.position
               from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id
               join rubric_versions rv on rv.id = g.rubric_version_id join rubrics rb on rb.id = rv.rubric_id
               join rubric_items ri on ri.rubric_version_id = rv.id
              where a.run_id = $1 and j.slug = any($2::text[]) and g.status = 'ok' and ${isNewestBySlug()}
                and rb.slug = any($3::text[]) and a.external_id = any($4::text[])) x`,
    [run.id, [...q.judges], files.map((f) => f.rubric), [...new Set(q.answers)]],
  );
  const stored = new Map<string, Map<string, number>>();
  for (const [slug, version, item, weight] of JSON.parse(String(r.rows[0]!.j)) as Array<[string, number, string, number]>) {
    const key = JSON.stringify([slug, version]);
    if (!stored.has(key)) stored.set(key, new Map());
    stored.get(key)!.set(item, weight);
  }
  const graded = `which ${q.judge}'s grades of run '${q.run}' were graded under`;
  for (const [key, items] of stored) {
    const [slug, version] = JSON.parse(key) as [string, number];
    const file = files.find((f) => f.rubric === slug)!;
    const at = `--rubric ${file.path}: rubric '${slug}'`;
    const fix = `the roll-up would not be those grades' completeness (give that version's file)`;
    for (const [item, weight] of items) {
      const mine = Object.hasOwn(file.items, item) ? file.items[item] : undefined;
      if (mine === undefined) throw badInput(`${at} has no item '${item}', which version ${version} has, ${graded}: ${fix}`);
      if (mine !== weight) throw badInput(`${at} item '${item}' weighs ${mine} here but ${weight} in version ${version}, ${graded}: ${fix}`);
    }
    const extra = Object.keys(file.items).find((item) => !items.has(item));
    if (extra !== undefined) throw badInput(`${at} has item '${extra}', which version ${version} has not, ${graded}: ${fix}`);
  }
}
