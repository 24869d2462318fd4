import { sampleLabel } from '../../domain/panel.ts';
import type { Rubric } from '../../domain/rubric.ts';
import type { ItemVerdict } from '../../domain/verdicts.ts';
import { cohenKappa } from '../../stats/kappa.ts';
import { scoreDescription } from '../description/score.ts';
import type { PanelResult, PanelSample } from './vote.ts';

/**
 * Figures over many panel grades of one rubric (a run graded by one panel): per item instability and
 * each member's kappa against the vote. Pure, like the vote; the calibration report calls these.
 */

export interface ItemInstability {
  id: string;
  /** Share of all ok samples, pooled over the quorate grades, that disagree with their grade's vote. */
  instability: number | null;
  /** Ok samples pooled (the denominator). */
  samples: number;
  /** Quorate grades that contributed. */
  answers: number;
}

/** What instability reads of a panel grade: its status and per item the voted verdict and the votes (a stored report has them). */
export type VotedGrade = { status: string; items: ReadonlyArray<Pick<PanelResult['items'][number], 'id' | 'verdict' | 'votes'>> };

/**
 * Per rubric item: pooled share of ok samples disagreeing with the vote, over grades with quorum. Without
 * a rubric (grades of several rubrics) the items are those the grades name, in order of first appearance.
 */
export function itemInstability(rubric: Pick<Rubric, 'items'> | null, results: readonly VotedGrade[]): ItemInstability[] {
  const ids = rubric ? rubric.items.map((it) => it.id) : [...new Set(results.flatMap((r) => r.items.map((it) => it.id)))];
  return ids.map((id) => {
    let disagree = 0;
    let total = 0;
    let answers = 0;
    for (const r of results) {
      if (r.status !== 'ok') continue;
      const row = r.items.find((x) => x.id === id);
      if (!row || row.verdict === null) continue;
      const n = row.votes.correct + row.votes.partial + row.votes.incorrect + row.votes.missing;
      disagree += n - row.votes[row.verdict];
      total += n;
      answers += 1;
    }
    return { id, instability: total > 0 ? disagree / total : null, samples: total, answers };
  });
}

export interface MemberKappa {
  judge: string;
  /** Cohen's kappa of the member's verdicts (all its ok samples) against the panel's vote, items pooled over answers. */
  kappa: number | null;
  /** Item verdict pairs compared. */
  n: number;
  reason?: string;
}

/**
 * Each member's agreement with the vote it took part in. The vote includes the member's own samples, so
 * this is higher than agreement with an independent rater would be (a member of a 3-judge panel is a
 * third of its own reference); kappa against humans is the independent figure.
 */
export function memberKappaAgainstVote(rubric: Rubric, graded: ReadonlyArray<{ samples: readonly PanelSample[]; result: PanelResult }>): MemberKappa[] {
  const pairs = new Map<string, { a: ItemVerdict[]; b: ItemVerdict[] }>();
  for (const { samples, result } of graded) {
    for (const s of samples) if (!pairs.has(s.judge)) pairs.set(s.judge, { a: [], b: [] });
    if (result.status !== 'ok') continue;
    const voted = new Map(result.items.map((it) => [it.id, it.verdict]));
    for (const s of samples) {
      if (s.status !== 'ok') continue;
      const score = scoreDescription(rubric, { items: [...s.items], claims: [] }, { where: `panel sample ${sampleLabel(s.judge, s.sample)}` });
      const p = pairs.get(s.judge)!;
      for (const it of score.items) {
        const v = voted.get(it.id);
        if (!v) continue;
        p.a.push(it.verdict);
        p.b.push(v);
      }
    }
  }
  return [...pairs].map(([judge, p]) => {
    const k = cohenKappa(p.a, p.b);
    return { judge, kappa: k.kappa, n: k.n, ...(k.kappa === null && k.reason ? { reason: k.reason } : {}) };
  });
}
