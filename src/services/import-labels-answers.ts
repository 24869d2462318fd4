import { asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Queryable } from '../db/client.ts';
import { answers, runs } from '../db/schema.ts';
import { locatedError, type Located } from './import-parse.ts';
import { CHUNK, LabelRowSchema } from './labels.ts';

/**
 * The answer a label row names (import-labels.ts): exactly one, or the row is refused — an id found in
 * several runs lists them, and a row may restate its answer's run and model but not name others.
 */

export interface Resolvable {
  loc: Located;
  row: z.output<typeof LabelRowSchema>;
}

export interface Candidate {
  id: number;
  rubricId: number | null;
  /** Only a description is labelled (label-values.ts describes). */
  task: string;
  externalId: string;
  run: string;
  model: string;
}

/** Every answer the rows could mean, fetched in bulk (a query per row is slow on large label sets). */
export async function fetchCandidates(tx: Queryable, rows: Resolvable[]): Promise<{ byExternal: Map<string, Candidate[]>; byId: Map<number, Candidate> }> {
  const select = () =>
    tx
      .select({ id: answers.id, rubricId: answers.rubricId, task: answers.task, externalId: answers.externalId, run: runs.name, model: runs.model })
      .from(answers)
      .innerJoin(runs, eq(runs.id, answers.runId));
  const externals = [...new Set(rows.flatMap((r) => (r.row.answer_id === undefined ? [r.row.answer!] : [])))];
  const ids = [...new Set(rows.flatMap((r) => (r.row.answer_id === undefined ? [] : [r.row.answer_id])))];
  const byExternal = new Map<string, Candidate[]>();
  const byId = new Map<number, Candidate>();
  for (let i = 0; i < externals.length; i += CHUNK) {
    for (const c of await select().where(inArray(answers.externalId, externals.slice(i, i + CHUNK))).orderBy(asc(answers.id))) {
      byExternal.set(c.externalId, [...(byExternal.get(c.externalId) ?? []), c]);
    }
  }
  for (let i = 0; i < ids.length; i += CHUNK) {
    for (const c of await select().where(inArray(answers.id, ids.slice(i, i + CHUNK)))) byId.set(c.id, c);
  }
  return { byExternal, byId };
}

export function resolveAnswer(index: Awaited<ReturnType<typeof fetchCandidates>>, r: Resolvable, defaults: { run?: string }): Candidate {
  const { row, loc } = r;
  if (row.answer_id !== undefined) {
    const a = index.byId.get(row.answer_id);
    if (!a) throw locatedError(loc, ['answer_id'], `unknown answer ${row.answer_id}`);
    // A row may restate its answer but not name another one: which of the two would it be labelling?
    if (row.answer !== undefined && row.answer !== a.externalId) throw locatedError(loc, ['answer'], `answer ${a.id} is '${a.externalId}' of run '${a.run}', this row says '${row.answer}'`);
    if (row.run !== undefined && row.run !== a.run) throw locatedError(loc, ['run'], `answer ${a.id} is in run '${a.run}', this row says '${row.run}'`);
    // The import's run (--run / ?run=) holds for every row without its own: an answer of another run is not one it names.
    if (row.run === undefined && defaults.run !== undefined && defaults.run !== a.run) throw locatedError(loc, ['answer_id'], `answer ${a.id} is in run '${a.run}', ?run= / --run says '${defaults.run}'`);
    if (row.model !== undefined && row.model !== a.model) throw locatedError(loc, ['model'], `answer ${a.id} is of model '${a.model}', this row says '${row.model}'`);
    return a;
  }
  const run = row.run ?? defaults.run;
  const found = (index.byExternal.get(row.answer!) ?? []).filter((c) => (!run || c.run === run) && (!row.model || c.model === row.model));
  const scope = [run && `run '${run}'`, row.model && `model '${row.model}'`].filter(Boolean).join(', ');
  if (found.length === 0) throw locatedError(loc, ['answer'], `unknown answer '${row.answer}'${scope ? ` in ${scope}` : ''}`);
  if (found.length > 1) {
    const names = [...new Set(found.map((f) => f.run))].sort();
    throw locatedError(loc, ['answer'], `answer '${row.answer}' is in ${names.length} runs (${names.join(', ')}); name the run (a "run" field, or --run / ?run=)`);
  }
  return found[0]!;
}
