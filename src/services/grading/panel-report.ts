import type { PanelVote } from '../../domain/panel.ts';
import type { PanelResult } from '../../scoring/panel/index.ts';

/**
 * What a panel grade reports (design §2.5, docs/panels.md): stored under the panel grade's meta.panel
 * and returned as GradeDetail.panel (null for a plain judge). Definitions of every figure are in
 * docs/panels.md; the numbers come from votePanel (src/scoring/panel/vote.ts).
 */

export interface PanelDetail {
  vote: PanelVote;
  quorum: number;
  /** All samples (members × samples per member) and those with status ok. */
  samples: number;
  okSamples: number;
  /** `reason`: why a sample that is not ok failed (its call's reason); null for an ok sample; absent in grades stored before it was kept. */
  members: Array<{ judge: string; sample: number; status: string; reason?: string | null; completeness: number | null; correctness: number | null }>;
  items: Array<{ id: string; verdict: string | null; votes: { correct: number; partial: number; incorrect: number; missing: number }; agreement: number | null }>;
  agreement: { meanItemAgreement: number | null; pairwiseKappa: Array<{ a: string; b: string; kappa: number | null; reason?: string }> };
  /** The rubric item order each sample was shown, when the panel shuffles; null otherwise (rubric order). */
  itemOrders: Array<{ judge: string; sample: number; order: string[] }> | null;
  /**
   * A no_quorum grade whose every abstention was a provider_error: a provider failure, not the judges'
   * answer, so it is asked again like provider_error (needs-grading.ts). False for an ok grade.
   */
  retryable: boolean;
}

/** `reasons[i]` is the reason of `result.members[i]`'s call (null when it gave none). */
export function panelDetail(result: PanelResult, itemOrders: PanelDetail['itemOrders'], reasons: ReadonlyArray<string | null>): PanelDetail {
  const abstained = result.members.filter((m) => m.status !== 'ok');
  return {
    vote: result.vote,
    quorum: result.quorum,
    samples: result.samples,
    okSamples: result.okSamples,
    members: result.members.map((m, i) => ({ judge: m.judge, sample: m.sample, status: m.status, reason: m.status === 'ok' ? null : (reasons[i] ?? null), completeness: m.completeness, correctness: m.correctness })),
    items: result.items.map((it) => ({ id: it.id, verdict: it.verdict, votes: { ...it.votes }, agreement: it.agreement })),
    agreement: { meanItemAgreement: result.agreement.meanItemAgreement, pairwiseKappa: result.agreement.pairwiseKappa.map((k) => ({ ...k })) },
    itemOrders,
    retryable: result.status !== 'ok' && abstained.every((m) => m.status === 'provider_error'),
  };
}
