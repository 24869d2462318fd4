import { sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { AssayError, badInput } from '../domain/errors.ts';
import { SCALES } from '../domain/labels.ts';

/**
 * Conditional saves of the annotation workspace. A page sends, with each mark, the label it showed for
 * that unit (`prev`, null for none); a save over a unit whose label changed since — another tab, or
 * someone sharing the annotator key — is refused as a conflict with nothing written, instead of the older
 * page silently replacing the newer label (last write wins). No version column is needed: the label the
 * page saw is the version. A mark without `prev` (a caller that does not know) saves unconditionally.
 */

/** Per stored item key: the stored label the page showed (null: none), and how to name the unit. */
export type Expected = Map<string, { was: string | null; unit: string }>;

type Unit = { item: string } | { claim: number } | { binary: string } | { rating: number };

const keyOf = (m: Unit): { key: string; unit: string } =>
  'item' in m
    ? { key: m.item, unit: `item '${m.item}'` }
    : 'claim' in m
      ? { key: `claim:${m.claim}`, unit: `claim ${m.claim}` }
      : 'binary' in m
        ? { key: ANSWER_SCALE_KEYS.binary, unit: 'binary (pass/fail)' }
        : { key: ANSWER_SCALE_KEYS.numeric, unit: 'rating' };

/** The shown value in its stored form: pass/fail as the binary scale stores it, a rating as its digits. */
function storedForm(m: Unit, prev: string | number): string {
  if ('binary' in m) {
    const n = SCALES.binary.normalise(String(prev));
    if (!n) throw badInput(`binary: prev ${JSON.stringify(prev)} is not ${SCALES.binary.accepts}`);
    return String(n.category);
  }
  return String(prev);
}

/** What the marks say their page showed; marks without `prev` add nothing. */
export function expectedLabels(marks: ReadonlyArray<Unit & { prev?: string | number | null }>): Expected {
  const out: Expected = new Map();
  for (const m of marks) {
    if (m.prev === undefined) continue;
    const { key, unit } = keyOf(m);
    out.set(key, { was: m.prev === null ? null : storedForm(m, m.prev), unit });
  }
  return out;
}

/** The labels as the workspace shows them now (annotator-labels.ts annotatorLabels, read in the saving transaction). */
export interface Shown {
  items: Record<string, string>;
  claims: Record<number, string>;
  binary?: string;
  numeric?: string;
}

/**
 * The database handle of a transaction, for a reader written against Database (annotatorLabels) to read
 * inside it: the check must see what the page would show under the save's own lock, not a second connection.
 */
export const inTransaction = (database: Database, tx: Queryable): Database => ({ ...database, db: tx as Database['db'] });

/**
 * Refuses the save when a unit's label is no longer what its page showed. `shown` is what the workspace
 * shows now (annotatorLabels: in a campaign its own label, else the plain one), so "what the page saw" and
 * "what is there now" are read by one rule. A unit already holding the label being saved is no conflict (a
 * retried request loses nothing). The caller holds a lock over (answer, annotator) so no save can slip in
 * between this check and its write.
 */
export function refuseChanged(answerId: number, shown: Shown, expected: Expected, saving: ReadonlyMap<string, string>): void {
  if (expected.size === 0) return;
  const now = new Map<string, string>(Object.entries(shown.items));
  for (const [n, label] of Object.entries(shown.claims)) now.set(`claim:${n}`, label);
  if (shown.binary !== undefined) now.set(ANSWER_SCALE_KEYS.binary, shown.binary);
  if (shown.numeric !== undefined) now.set(ANSWER_SCALE_KEYS.numeric, shown.numeric);
  const changed: string[] = [];
  for (const [key, { was, unit }] of expected) {
    const current = now.get(key) ?? null;
    if (current === was || current === saving.get(key)) continue;
    changed.push(`${unit} is now ${current === null ? 'unlabelled' : `'${current}'`} (this page showed ${was === null ? 'no label' : `'${was}'`})`);
  }
  if (changed.length) {
    throw new AssayError('conflict', `answer ${answerId}: changed since this page was loaded (another tab or someone with the same key): ${changed.join('; ')}; nothing saved — reload to see the latest labels`);
  }
}

/** Serialises saves of one annotator's plain labels of one answer (the campaign path locks the annotator). */
export async function lockAnswerLabels(tx: Queryable, answerId: number, annotator: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`labels:${answerId}:${annotator}`})::bigint)`);
}
