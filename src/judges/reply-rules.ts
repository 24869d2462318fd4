import type { CachedResponse } from './store.ts';

/**
 * The version of the rules a judge reply passes to become an ok grade (parse.ts, contract.ts, and the
 * adapters' `problem`), stamped on every cache entry as `replyRules`. An entry was checked once, fresh,
 * under the rules of its day; one stamped older (or not at all: written before the stamp) is a miss and
 * the judge is asked again under today's rules. Re-parsing the cached raw would not do: an Anthropic
 * entry keeps the tool input as the SDK parsed it (a key given twice is already gone), and before
 * version 2 a reply calling the verdict tool twice kept only the first call's input.
 *
 * Bump it whenever a rule gets stricter (a relaxed rule leaves every old entry valid, so it needs none):
 *   1 — no stamp: entries from before the stricter rules below.
 *   2 — two different JSON objects, a key given twice, a reply ending inside its JSON object, and the
 *       verdict tool called twice with different input are invalid output.
 *   3 — JSON text that jsonrepair would mend by deleting an ellipsis (`"claims":[...]`) or a comment is
 *       invalid output (an entry of 2 may hold verdicts graded on the elements written out).
 */
export const REPLY_RULES_VERSION = 3;

/** A cached reply that passed today's rules (or stricter ones, from a newer build sharing the database). */
export const meetsReplyRules = (hit: CachedResponse): boolean => typeof hit.replyRules === 'number' && hit.replyRules >= REPLY_RULES_VERSION;
