import type { Database } from '../db/client.ts';
import { REPORT_TABLES } from './report-inputs.ts';

/**
 * The data versions a cached report is filed under (report-cache.ts).
 *
 * Versions (migration 0008): every statement that writes a table moves the table's sequence
 * `data_version_<table>`, and holds a shared advisory lock on (VERSION_LOCK, the sequence's oid) until
 * its transaction ends. A report names its input tables; its stamp is those tables' sequence values, plus
 * the transactions that still hold a lock on one of them. The sequences are read first, the locks second,
 * the report's own queries after both: a write counted in the sequences has either committed (and every
 * later query sees it) or still holds its lock (so the stamp names it, and no stamp after it ends can
 * equal this one). A write not yet counted lands, at worst, in a result filed under the older stamp,
 * which the next request (seeing the sequence moved) recomputes: a result is never served for data newer
 * than it saw, and a write to a table a report does not read leaves it cached (an API key's last use, a
 * rate limit, the usage ledger, a worker's heartbeat; pg-boss's tables have no sequence at all).
 * Reading costs two round trips, well under a millisecond. A database without the sequences (migration
 * 0008 not applied) falls back to the whole database's snapshot, where any write invalidates everything.
 */

/** Arbitrary constant: the first key of the writers' advisory locks (the migration uses the same). */
const VERSION_LOCK = 1095979865;

/** The tables' versions as read at one moment: `stamp(inputs)` is what a result over `inputs` is filed under. */
export interface DataVersions {
  stamp(inputs: readonly string[]): string;
}

interface SequenceRow {
  t: string;
  oid: number;
  v: string;
}

async function readVersions(database: Database): Promise<DataVersions> {
  // Sequences first, locks second (see the top of this file): the order is what makes the stamp safe.
  const seqs = (
    await database.execute(
      `select substr(c.relname, 14) as t, c.oid::int as oid, coalesce(pg_sequence_last_value(c.oid), 0)::text as v
         from pg_class c where c.relkind = 'S' and c.relname like 'data\\_version\\_%' and c.relnamespace = current_schema()::regnamespace`,
    )
  ).rows as unknown as SequenceRow[];
  if (seqs.length === 0) {
    const r = await database.execute('select pg_current_snapshot()::text as v');
    const whole = `snapshot ${String(r.rows[0]!.v)}`;
    return { stamp: () => whole };
  }
  const locks = await database.execute(
    `select objid::int as oid, virtualtransaction as vx from pg_locks
      where locktype = 'advisory' and classid = ${VERSION_LOCK} and objsubid = 2 and granted
        and database = (select oid from pg_database where datname = current_database())`,
  );
  const pending = new Map<number, string[]>();
  for (const l of locks.rows) pending.set(Number(l.oid), [...(pending.get(Number(l.oid)) ?? []), String(l.vx)]);
  const byTable = new Map(seqs.map((s) => [String(s.t), `${String(s.t)}=${String(s.v)}${pending.has(Number(s.oid)) ? `~${pending.get(Number(s.oid))!.sort().join('+')}` : ''}`]));
  return {
    stamp: (inputs) =>
      [...new Set(inputs)]
        .sort()
        .map((t) => {
          const v = byTable.get(t);
          // A misspelt table would never move: refuse it rather than cache a report forever.
          if (v === undefined) throw new Error(`report input '${t}' has no data version (migration 0008 tracks every table)`);
          return v;
        })
        .join(','),
  };
}

const batched = new WeakMap<Database, Promise<DataVersions>>();

/**
 * The data versions (see above). Callers that arrive together share one read, and only a read that
 * starts after all of them arrived (on the next turn of the event loop): whatever any of them saw
 * committed before asking is inside it, so sharing never hands anyone an older version — while a crowd of
 * readers costs one read per turn instead of one each (on PGlite, every query runs on the main thread).
 */
export function dataVersions(database: Database): Promise<DataVersions> {
  let p = batched.get(database);
  if (!p) {
    p = new Promise<DataVersions>((resolve, reject) => {
      setImmediate(() => {
        // Closed before the read starts: a caller arriving from now on waits for the next read.
        batched.delete(database);
        readVersions(database).then(resolve, reject);
      });
    });
    batched.set(database, p);
  }
  return p;
}

/** The stamp of `inputs` now (tests compare stamps across writes). */
export async function dataVersion(database: Database, inputs: readonly string[] = REPORT_TABLES): Promise<string> {
  return (await dataVersions(database)).stamp(inputs);
}
