import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';

/** Rows of a raw statement on the database or inside a transaction (the drivers return them differently). */
export async function rowsOf<T = Record<string, unknown>>(db: Queryable, q: SQL): Promise<T[]> {
  const r = (await db.execute(q)) as unknown as { rows?: T[] } | T[];
  return Array.isArray(r) ? r : (r.rows ?? []);
}

/** A list bound as one JSON parameter (no driver-specific array binding): `x in (select … from ${jsonList(ids)})`. */
export const intList = (ids: readonly number[]): SQL => sql`(select value::int from json_array_elements_text(${JSON.stringify(ids)}::json))`;
export const textList = (xs: readonly string[]): SQL => sql`(select value from json_array_elements_text(${JSON.stringify(xs)}::json))`;

/** jsonb comes back parsed from one driver and as text from another. */
export const json = <T>(v: unknown): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : ((v ?? null) as T | null));
