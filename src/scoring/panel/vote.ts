import { badInput } from '../../domain/errors.ts';
import { defaultQuorum, NO_QUORUM_STATUS, PANEL_VOTES, type PanelVote, sampleLabel } from '../../domain/panel.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { ITEM_VERDICTS, VERDICT_POINTS, type ItemVerdict } from '../../domain/verdicts.ts';
import { cohenKappa } from '../../stats/kappa.ts';
import { f1Score, scoreDescription } from '../description/score.ts';

/**
 * The vote of a panel judge (design §2.5): many samples' rubric verdicts for one answer become one
 * grade. Pure: samples in, a report out. Completeness always comes from src/scoring/description (the
 * one definition of §2.1); this module only decides the verdicts and averages.
 */

/** One member's answer to one request. Non-ok samples abstain: their items and correctness are ignored. */
export interface PanelSample {
  /** The member judge's id. */
  judge: string;
  /** 1-based sample number within the member (each sample is its own call). */
  sample: number;
  /** `ok`, or the failure status of the call (provider_error, parse_failure, …). */
  status: string;
  /** Rubric verdicts of an ok sample; unlisted items are `missing` (as everywhere in §2.1). */
  items: ReadonlyArray<{ id: string; verdict: ItemVerdict }>;
  /** The sample's own correctness from its claims (§2.1); null for a failed sample. */
  correctness: number | null;
}

export interface PanelOptions {
  /** Default `majority`. */
  vote?: PanelVote;
  /** Ok samples needed; default more than half of all samples given. */
  quorum?: number;
}

export type VoteCounts = Record<ItemVerdict, number>;

export interface PanelItem {
  id: string;
  weight: number;
  /** The voted verdict (under `mean` the majority verdict, shown beside the mean points); null without quorum. */
  verdict: ItemVerdict | null;
  /** Points per unit weight the item earns: the voted verdict's (majority) or the samples' mean (mean). */
  points: number | null;
  /** Ok samples per verdict. */
  votes: VoteCounts;
  /** Share of ok samples that gave the voted verdict. */
  agreement: number | null;
  /** Share of ok samples that disagree with the vote (1 − agreement). */
  instability: number | null;
}

export interface PanelMember {
  judge: string;
  sample: number;
  status: string;
  completeness: number | null;
  correctness: number | null;
}

export interface PairwiseKappa {
  /** Sample labels `<judge>#<sample>`. */
  a: string;
  b: string;
  /** Cohen's kappa (unweighted) over the two samples' item verdicts, as `assay stats kappa` computes it. */
  kappa: number | null;
  /** Why kappa is undefined (e.g. every verdict the same), only when it is null. */
  reason?: string;
}

export interface PanelResult {
  status: 'ok' | typeof NO_QUORUM_STATUS;
  /** Without quorum: how many samples were ok and every sample's status. */
  reason: string | null;
  vote: PanelVote;
  quorum: number;
  samples: number;
  okSamples: number;
  completeness: number | null;
  correctness: number | null;
  f1: number | null;
  members: PanelMember[];
  items: PanelItem[];
  agreement: { meanItemAgreement: number | null; pairwiseKappa: PairwiseKappa[] };
}

/**
 * Tie order of the majority vote: a tie goes to the verdict worth fewer points, and between the two
 * zero-point verdicts to `missing` (the judge that did not see a contradiction is not overruled by a
 * tie). Earlier in this list wins a tie.
 */
export const TIE_PREFERENCE: readonly ItemVerdict[] = ['missing', 'incorrect', 'partial', 'correct'];

/** The verdict with most votes; ties broken by TIE_PREFERENCE. Null when nobody voted. */
export function majorityVerdict(votes: VoteCounts): ItemVerdict | null {
  let best: ItemVerdict | null = null;
  for (const v of TIE_PREFERENCE) if (votes[v] > 0 && (best === null || votes[v] > votes[best])) best = v;
  return best;
}

/** §2.1's f1: the harmonic mean of completeness and correctness, 0 when both are 0. */

/** Summed in ascending order, so the panel's figures do not depend on the order its samples arrive in. */
const mean = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b).reduce((s, x) => s + x, 0) / xs.length;

const emptyVotes = (): VoteCounts => Object.fromEntries(ITEM_VERDICTS.map((v) => [v, 0])) as VoteCounts;

function checkOptions(samples: readonly PanelSample[], opts: PanelOptions): { vote: PanelVote; quorum: number } {
  const vote = opts.vote ?? 'majority';
  if (!PANEL_VOTES.includes(vote)) throw badInput(`panel vote: expected ${PANEL_VOTES.join('|')}, got '${String(vote)}'`);
  if (samples.length === 0) throw badInput('panel: no samples to vote on');
  const quorum = opts.quorum ?? defaultQuorum(samples.length);
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > samples.length) {
    throw badInput(`panel quorum: must be a whole number from 1 to the ${samples.length} samples, got ${quorum}`);
  }
  const seen = new Set<string>();
  for (const s of samples) {
    if (!Number.isInteger(s.sample) || s.sample < 1) throw badInput(`panel sample of ${s.judge}: sample numbers count from 1, got ${s.sample}`);
    const label = sampleLabel(s.judge, s.sample);
    if (seen.has(label)) throw badInput(`panel: sample ${label} is given twice`);
    seen.add(label);
    if (s.status === 'ok' && !(typeof s.correctness === 'number' && s.correctness >= 0 && s.correctness <= 1)) {
      throw badInput(`panel sample ${label}: an ok sample needs a correctness in [0, 1], got ${String(s.correctness)}`);
    }
  }
  return { vote, quorum };
}

interface ScoredSample {
  label: string;
  completeness: number;
  correctness: number;
  /** Verdict per rubric item, in rubric order. */
  verdicts: ItemVerdict[];
}

export function votePanel(rubric: Rubric, samples: readonly PanelSample[], opts: PanelOptions = {}): PanelResult {
  const { vote, quorum } = checkOptions(samples, opts);
  const ok: ScoredSample[] = [];
  const members: PanelMember[] = samples.map((s) => {
    if (s.status !== 'ok') return { judge: s.judge, sample: s.sample, status: s.status, completeness: null, correctness: null };
    const label = sampleLabel(s.judge, s.sample);
    const score = scoreDescription(rubric, { items: [...s.items], claims: [] }, { where: `panel sample ${label}` });
    ok.push({ label, completeness: score.completeness, correctness: s.correctness!, verdicts: score.items.map((it) => it.verdict) });
    return { judge: s.judge, sample: s.sample, status: 'ok', completeness: score.completeness, correctness: s.correctness };
  });

  const quorate = ok.length >= quorum;
  const items: PanelItem[] = rubric.items.map((it, i) => {
    const votes = emptyVotes();
    for (const s of ok) votes[s.verdicts[i]!] += 1;
    const verdict = quorate ? majorityVerdict(votes) : null;
    if (verdict === null) return { id: it.id, weight: it.weight, verdict, points: null, votes, agreement: null, instability: null };
    const agreement = votes[verdict] / ok.length;
    const points = vote === 'mean' ? mean(ok.map((s) => VERDICT_POINTS[s.verdicts[i]!])) : VERDICT_POINTS[verdict];
    return { id: it.id, weight: it.weight, verdict, points, votes, agreement, instability: 1 - agreement };
  });

  const pairwiseKappa: PairwiseKappa[] = [];
  for (let i = 0; i < ok.length; i++) {
    for (let j = i + 1; j < ok.length; j++) {
      const k = cohenKappa(ok[i]!.verdicts, ok[j]!.verdicts);
      pairwiseKappa.push({ a: ok[i]!.label, b: ok[j]!.label, kappa: k.kappa, ...(k.kappa === null && k.reason ? { reason: k.reason } : {}) });
    }
  }

  const base = { vote, quorum, samples: samples.length, okSamples: ok.length, members, items };
  if (!quorate) {
    const statuses = members.map((m) => `${sampleLabel(m.judge, m.sample)} ${m.status}`).join(', ');
    return {
      status: NO_QUORUM_STATUS,
      reason: `${ok.length} of ${samples.length} samples ok, quorum ${quorum}: ${statuses}`,
      ...base,
      completeness: null,
      correctness: null,
      f1: null,
      agreement: { meanItemAgreement: null, pairwiseKappa },
    };
  }
  // Under `mean` completeness is Σ w·(mean points)/Σ w, which is the mean of the samples' completeness
  // (every sample has a verdict for every item): so both votes take completeness from scoreDescription.
  const completeness =
    vote === 'mean'
      ? mean(ok.map((s) => s.completeness))
      : scoreDescription(rubric, { items: items.map((it) => ({ id: it.id, verdict: it.verdict! })), claims: [] }).completeness;
  const correctness = mean(ok.map((s) => s.correctness));
  return {
    status: 'ok',
    reason: null,
    ...base,
    completeness,
    correctness,
    f1: f1Score(completeness, correctness),
    agreement: { meanItemAgreement: mean(items.map((it) => it.agreement!)), pairwiseKappa },
  };
}
