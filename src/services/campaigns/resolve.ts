import { and, eq, isNull, or } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { apiKeys } from '../../db/schema.ts';
import { badInput } from '../../domain/errors.ts';

/**
 * The names people label as (an annotate key labels as its key's name, src/api/routes/labels.ts): a
 * key named by row id or by its prefix becomes that key's name; any other text is taken as the name,
 * so a campaign can name an annotator whose key is made later. A key that is unknown or revoked, or
 * two entries naming one person, is bad input.
 */
export async function resolveAnnotators(tx: Queryable, entries: ReadonlyArray<number | string>, field: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of entries) {
    let name: string;
    if (typeof e === 'number') {
      const [k] = await tx.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.id, e), isNull(apiKeys.revokedAt)));
      if (!k) throw badInput(`${field}: no active API key with id ${e}`);
      name = k.name;
    } else {
      const [k] = /^[0-9a-f]{8}$/.test(e)
        ? await tx.select({ name: apiKeys.name }).from(apiKeys).where(and(or(eq(apiKeys.prefix, e)), isNull(apiKeys.revokedAt)))
        : [];
      name = k?.name ?? e;
    }
    if (out.includes(name)) throw badInput(`${field}: '${name}' is named twice`);
    out.push(name);
  }
  return out;
}
