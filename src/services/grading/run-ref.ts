import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { runs } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { rowIdProblem } from '../../domain/limits.ts';

/** A run named by a user: its name, or its numeric id (a run literally named "12" wins over id 12). */
export interface RunRef {
  id: number;
  name: string;
  model: string;
}

/** A ref that could be a row id is also looked up by id; one beyond the int4 range is a name only (never compared with the id column). */
export async function findRun(database: Database, ref: string | number): Promise<RunRef> {
  const byId = typeof ref === 'number' || rowIdProblem(ref) === null;
  const rows = await database.db
    .select({ id: runs.id, name: runs.name, model: runs.model })
    .from(runs)
    .where(byId ? sql`${runs.id} = ${Number(ref)} or ${runs.name} = ${String(ref)}` : eq(runs.name, String(ref)));
  const exact = rows.find((r) => r.name === String(ref)) ?? rows[0];
  if (!exact) throw notFound(`run '${ref}' not found`);
  return exact;
}
