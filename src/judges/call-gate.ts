import type { CachedResponse, JobLease, LedgerEntry, UsageLedger } from './store.ts';
import { type JudgeReply, type JudgeRequest, ProviderCallError } from './types.ts';

/**
 * Runs `send` when the caller's limits allow (a call slot, the shared rate limit). The pending ledger
 * row is written inside `send`, so a call waiting at the gate has no row yet and a kill while waiting
 * leaves nothing unsettled that was never sent.
 */
export type CallGate = (req: JudgeRequest, send: () => Promise<JudgeReply>) => Promise<JudgeReply>;

/** Race the adapter against a backstop timer, so a call that ignores its own timeout still ends. */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderCallError('retryable', `timeout: no reply within ${ms} ms`, undefined, undefined, 'timeout')), ms);
  });
  try {
    return await Promise.race([p, backstop]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ledger's combined cache lookup and begin (UsageLedger.beginUnlessCached), bound to its ledger. */
export type CombinedLookup = NonNullable<UsageLedger['beginUnlessCached']>;

/**
 * What the gate runs for one attempt, and what the attempt's failure handling reads back: whether the
 * pending row was written (`begun`: a call was sent), the lease was lost, or the combined lookup found
 * the verdict cached (thrown as an error so that nothing is sent).
 */
export interface CallSender {
  send(): Promise<JudgeReply>;
  /** Reset by the engine before each attempt. */
  begun: boolean;
  leaseLost: boolean;
  cachedHit: CachedResponse | undefined;
}

export interface SenderContext {
  ledger: UsageLedger;
  /** Given: the cache is read in the first attempt's pending write (inside the gate). */
  combined?: CombinedLookup;
  cacheKey: string;
  lease?: JobLease;
  /** An entry checked under older reply rules is a miss (reply-rules.ts). */
  usable: (hit: CachedResponse) => boolean;
  /** The attempt's pending row, made when the request is about to leave. */
  pendingEntry: () => LedgerEntry;
  call: () => Promise<JudgeReply>;
  timeoutMs: number;
}

export function callSender(c: SenderContext): CallSender {
  const combined = c.combined;
  // The pending row is written just before the request leaves; `begun` says whether this attempt's was.
  let lookedUp = !combined;
  const begin = async (entry: LedgerEntry): Promise<boolean> => {
    if (lookedUp) return c.ledger.begin(entry, c.lease);
    lookedUp = true;
    const r = await combined!(c.cacheKey, entry, c.lease);
    if ('begun' in r) return r.begun;
    // A stale entry wrote no pending row: this is a miss, so the call begins as any other (same gate pass).
    if (!c.usable(r.hit)) return c.ledger.begin(entry, c.lease);
    sender.cachedHit = r.hit;
    throw new Error('cache hit');
  };
  const sender: CallSender = {
    begun: false,
    leaseLost: false,
    cachedHit: undefined,
    async send(): Promise<JudgeReply> {
      if (!(await begin(c.pendingEntry()))) {
        sender.leaseLost = true;
        throw new ProviderCallError('fatal', 'lease lost: another worker holds this job now');
      }
      sender.begun = true;
      return withTimeout(c.call(), c.timeoutMs);
    },
  };
  return sender;
}
