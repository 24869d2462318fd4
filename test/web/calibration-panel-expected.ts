import type { Database } from '../../src/db/client.ts';
import { SCALES } from '../../src/domain/labels.ts';
import { ITEM_VERDICTS } from '../../src/domain/verdicts.ts';
import { cohenKappa } from '../../src/stats/kappa.ts';

/**
 * The panel section's figures for one run, rebuilt from the stored rows by another road than the page:
 * the human majority per item from the raw labels (a tie has none), each judge's verdicts from its newest
 * grade per answer, kappas from src/stats directly, and instability from the members' own verdicts
 * against the panel's (not from the votes the panel stored).
 */

export interface Expected {
  n: number;
  agreement: number;
  kappa: number | null;
  weightedKappa: number | null;
}

const points = (v: string) => SCALES.verdict.normalise(v)!.value;

function compare(a: Map<string, string>, b: Map<string, string>): Expected {
  const keys = [...a.keys()].filter((k) => b.has(k));
  const ca = keys.map((k) => a.get(k)!);
  const cb = keys.map((k) => b.get(k)!);
  const k = cohenKappa(ca, cb, { weights: 'none', categories: ITEM_VERDICTS });
  const w = cohenKappa(ca.map(points), cb.map(points), { weights: 'linear', categories: [0, 0.5, 1] });
  return { n: keys.length, agreement: ca.filter((x, i) => x === cb[i]).length / keys.length, kappa: k.kappa, weightedKappa: w.kappa };
}

export interface ExpectedPanel {
  humans: Map<string, string>;
  verdicts: Record<string, Map<string, string>>;
  vsHumans: Record<string, Expected>;
  vsVote: Record<string, Expected>;
  /** Per item, pooled over the answers: members whose verdict differs from the panel's ÷ members. */
  instability: Record<string, number>;
  /**
   * The reliability diagram by hand: each voted item with a human majority is a point at confidence =
   * the vote share (members giving the voted verdict ÷ members), agreeing when the vote is the majority;
   * ten bins [i/10, (i+1)/10), the last closed; ECE = Σ n_b/N · |agreement_b − mean confidence_b|.
   */
  reliability: { bins: Array<{ index: number; n: number; meanConfidence: number; agreement: number }>; n: number; ece: number };
}

export async function expectedPanel(database: Database, run: string, panel: string, members: readonly string[]): Promise<ExpectedPanel> {
  const labels = await database.execute(
    `select a.id as answer, l.item_key as item, l.label from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
      where r.name = $1 and l.kind = 'human' and l.item_key <> '' and l.item_key not like 'claim:%'`,
    [run],
  );
  const tally = new Map<string, Map<string, number>>();
  for (const row of labels.rows as Array<{ answer: number; item: string; label: string }>) {
    const key = `${row.answer}/${row.item}`;
    const t = tally.get(key) ?? new Map<string, number>();
    t.set(row.label, (t.get(row.label) ?? 0) + 1);
    tally.set(key, t);
  }
  const humans = new Map<string, string>();
  for (const [key, t] of tally) {
    const ranked = [...t].sort((x, y) => y[1] - x[1]);
    if (ranked.length === 1 || ranked[0]![1] > ranked[1]![1]) humans.set(key, ranked[0]![0]);
  }
  const grades = await database.execute(
    `select distinct on (j.slug, a.id) j.slug, a.id as answer, g.items from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id
      where r.name = $1 and g.status = 'ok' and j.slug = any($2::text[]) order by j.slug, a.id, g.id desc`,
    [run, [panel, ...members]],
  );
  const verdicts: Record<string, Map<string, string>> = {};
  for (const g of grades.rows as Array<{ slug: string; answer: number; items: Array<{ id: string; verdict: string }> }>) {
    const m = (verdicts[g.slug] ??= new Map());
    for (const it of g.items) m.set(`${g.answer}/${it.id}`, it.verdict);
  }
  const vote = verdicts[panel]!;
  // Pooled over the run's answers: per item, Σ members differing from the vote ÷ Σ members.
  const pooled = new Map<string, [number, number]>();
  for (const [key, v] of vote) {
    const item = key.split('/')[1]!;
    const [d, n] = pooled.get(item) ?? [0, 0];
    pooled.set(item, [d + members.filter((m) => verdicts[m]?.get(key) !== v).length, n + members.length]);
  }
  const instability = Object.fromEntries([...pooled].map(([item, [d, n]]) => [item, d / n]));
  const binned = new Map<number, { n: number; conf: number; agree: number }>();
  for (const [key, v] of vote) {
    const majority = humans.get(key);
    if (majority === undefined) continue;
    const c = members.filter((m) => verdicts[m]?.get(key) === v).length / members.length;
    const index = Math.min(Math.floor(c * 10), 9);
    const b = binned.get(index) ?? { n: 0, conf: 0, agree: 0 };
    binned.set(index, { n: b.n + 1, conf: b.conf + c, agree: b.agree + (v === majority ? 1 : 0) });
  }
  const bins = [...binned].sort((x, y) => x[0] - y[0]).map(([index, b]) => ({ index, n: b.n, meanConfidence: b.conf / b.n, agreement: b.agree / b.n }));
  const total = bins.reduce((t, b) => t + b.n, 0);
  const ece = bins.reduce((t, b) => t + (b.n / total) * Math.abs(b.agreement - b.meanConfidence), 0);
  return {
    reliability: { bins, n: total, ece },
    humans,
    verdicts,
    vsHumans: Object.fromEntries([panel, ...members].map((j) => [j, compare(verdicts[j]!, humans)])),
    vsVote: Object.fromEntries(members.map((m) => [m, compare(verdicts[m]!, vote)])),
    instability,
  };
}
