import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { AssayError } from '../domain/errors.ts';
import type { Database } from './client.ts';
import { claimLock, OWNER_DIR, type OwnerLock } from './pglite-owner.ts';

/**
 * Runs `f` while holding a named lock that every process on the database sees: a PostgreSQL
 * session-level advisory lock on a connection reserved for the purpose (released with it, so a
 * process that dies frees the lock), plus an in-process set, since a session's advisory locks are
 * re-entrant and PGlite is one session. On a PGlite directory the lock is a file in it instead (see
 * pglite-owner.ts): every process reaching that directory shares the owner's one session, so an advisory
 * lock would be granted to all of them. Not waiting: a lock already held is a `conflict` naming `what`.
 */

const held = new WeakMap<Database, Set<string>>();

interface Reserved {
  unsafe(q: string, p: unknown[]): Promise<Array<Record<string, unknown>>>;
  release(): void;
}

export async function withExclusive<T>(database: Database, name: string, what: string, f: () => Promise<T>): Promise<T> {
  const mine = held.get(database) ?? held.set(database, new Set()).get(database)!;
  if (mine.has(name)) throw new AssayError('conflict', what);
  mine.add(name);
  let reserved: Reserved | null = null;
  let file: OwnerLock | null = null;
  try {
    if (database.pgliteDir) {
      const claim = claimLock(join(database.pgliteDir, OWNER_DIR, 'locks', createHash('sha256').update(name).digest('hex').slice(0, 32)));
      if (!claim.owned) throw new AssayError('conflict', what);
      file = claim.lock;
    } else if (database.kind === 'postgres') {
      const client = (database.db as unknown as { $client: { reserve(): Promise<Reserved> } }).$client;
      reserved = await client.reserve();
      const [row] = await reserved.unsafe('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [name]);
      if (!row?.ok) throw new AssayError('conflict', what);
    }
    try {
      return await f();
    } finally {
      if (reserved) await reserved.unsafe('select pg_advisory_unlock(hashtextextended($1, 0))', [name]).catch(() => {});
    }
  } finally {
    reserved?.release();
    file?.release();
    mine.delete(name);
  }
}
