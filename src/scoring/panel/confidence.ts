import type { PanelResult } from './vote.ts';

/**
 * A panel item's confidence (docs/panels.md#confidence): how sure the panel is of its voted verdict.
 *
 * - When every ok sample has a log-probability for the item, the confidence is the mean over the ok
 *   samples of each sample's probability of the voted verdict, counting a sample that voted otherwise as
 *   0 — (1/k) Σ_{samples that gave the voted verdict} p_s. A dissenting sample's probability of the voted
 *   verdict is not known (only of its own; it is at most 1 − p_s), and 0 keeps the figure at or below the
 *   vote share: it equals the vote share when every agreeing sample was certain. Source `logprob`.
 * - Otherwise the vote share (the item's `agreement`: votes for the voted verdict / ok samples). Source `vote`.
 * - Without quorum (no voted verdict): null.
 */

export interface SampleConfidence {
  status: string;
  /** The sample's verdicts (an item it did not list is missing). */
  items: ReadonlyArray<{ id: string; verdict: string }>;
  /** Item id → probability of the sample's verdict, when its provider gave log-probabilities. */
  confidence?: Readonly<Record<string, number>> | undefined;
}

export interface ItemConfidence {
  confidence: number | null;
  confidenceSource: 'logprob' | 'vote' | null;
}

export function panelItemConfidence(result: Pick<PanelResult, 'items'>, samples: readonly SampleConfidence[]): Map<string, ItemConfidence> {
  const ok = samples.filter((s) => s.status === 'ok');
  const out = new Map<string, ItemConfidence>();
  for (const it of result.items) {
    if (it.verdict === null || ok.length === 0) {
      out.set(it.id, { confidence: null, confidenceSource: null });
      continue;
    }
    const probs = ok.map((s) => s.confidence?.[it.id]);
    if (probs.every((p) => typeof p === 'number')) {
      const sum = ok.reduce((n, s, i) => n + ((s.items.find((x) => x.id === it.id)?.verdict ?? 'missing') === it.verdict ? probs[i]! : 0), 0);
      out.set(it.id, { confidence: sum / ok.length, confidenceSource: 'logprob' });
    } else out.set(it.id, { confidence: it.agreement, confidenceSource: it.agreement === null ? null : 'vote' });
  }
  return out;
}
