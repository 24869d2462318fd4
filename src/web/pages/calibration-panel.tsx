import type { KappaStat } from '../../analysis/calibration/index.ts';
import type { Database } from '../../db/client.ts';
import { leftOutText, pagePanelCalibration, type PairFigures, type PanelCalibration } from '../../services/web-calibration-panel.ts';
import { num } from '../format.ts';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { SelectField } from '../select-field.tsx';
import { DataTable, type Row, type Table } from '../table.tsx';
import { reliabilityCharts } from './calibration-panel-charts.ts';
import { cachedPage, param } from './report-page.ts';
import { chooseJudge } from '../../services/report-data.ts';
import { getRun } from '../../services/runs.ts';

/**
 * The calibration page's section for a panel judge, per run (docs/web-pages.md#a-panel-judge): the panel
 * against the human majority beside each member, each member against the vote, per-item instability, the
 * reliability diagram and, for a shuffled panel, its order sensitivity. Its own file and its own cached body, added below the page's report by
 * `withPanelSection`, so the page and the section change independently.
 */

/** The section's query parameters (the page takes them besides its own). */
export const PANEL_PARAMS = ['panel', 'run'] as const;

const kappaCells = (key: string, k: KappaStat | null): Row => ({ [key]: k?.kappa ?? null, [`${key}Low`]: k?.ci?.[0] ?? null, [`${key}High`]: k?.ci?.[1] ?? null });

const pairCells = (p: PairFigures): Row => ({ n: p.n, agreement: p.agreement, ...kappaCells('kappa', p.kappa), ...kappaCells('weightedKappa', p.weightedKappa), reason: p.reason });

const PAIR_COLUMNS: Table['columns'] = [
  { key: 'n', label: 'Units', kind: 'int', help: 'rubric items of the run labelled by both' },
  { key: 'agreement', label: 'Agreement', kind: 'num', help: 'share of units with the same verdict' },
  { key: 'kappa', label: 'Kappa', kind: 'ci', help: "Cohen's kappa with its 95% interval" },
  { key: 'weightedKappa', label: 'Weighted kappa', kind: 'ci', help: 'kappa weighted by verdict points (ordered scale), with its 95% interval' },
  { key: 'reason', label: 'Note', help: 'why a figure is missing' },
];

function tables(p: PanelCalibration): Table[] {
  const where = p.panel && p.run ? ` (panel ${p.panel}, run ${p.run})` : '';
  return [
    {
      id: 'panel-vs-humans',
      caption: `The panel and each member against the human majority${where}`,
      columns: [{ key: 'judge', label: 'Judge' }, { key: 'role', label: 'Role' }, ...PAIR_COLUMNS],
      rows: p.vsHumans.map((r) => ({ judge: r.judge, role: r.role, ...pairCells(r) })),
      empty: 'No figures for this panel and run.',
    },
    {
      id: 'panel-members-vs-vote',
      caption: `Each member against the panel's vote${where}`,
      columns: [{ key: 'member', label: 'Member' }, ...PAIR_COLUMNS],
      rows: p.vsVote.map((r) => ({ member: r.member, ...pairCells(r) })),
      empty: 'No member grades in this run.',
    },
    {
      id: 'panel-instability',
      caption: `Item instability: share of the panel's ok samples disagreeing with the vote${where}`,
      columns: [
        { key: 'item', label: 'Item' },
        { key: 'instability', label: 'Instability', kind: 'num', help: 'ok samples whose verdict differs from the vote ÷ ok samples, pooled over the run’s quorate panel grades' },
        { key: 'samples', label: 'Samples', kind: 'int', help: 'ok samples pooled (the denominator)' },
        { key: 'answers', label: 'Answers', kind: 'int', help: 'quorate panel grades that voted on the item' },
      ],
      rows: p.instability.map((i) => ({ item: i.id, instability: i.instability, samples: i.samples, answers: i.answers })),
      empty: 'No quorate panel grade in this run.',
    },
    {
      id: 'panel-reliability',
      caption: `Reliability: confidence bins against the share of items where the human majority agrees${where}${p.reliability ? ` — ECE ${num(p.reliability.ece)} over ${p.reliability.n} items; ${[leftOutText(p.reliability.leftOut), ...p.reliability.notes].join('; ')}` : ''}`,
      columns: [
        { key: 'bin', label: 'Confidence bin' },
        { key: 'n', label: 'Items', kind: 'int' },
        { key: 'meanConfidence', label: 'Mean confidence', kind: 'num' },
        { key: 'agreement', label: 'Agrees with humans', kind: 'num', help: 'share of the bin’s items whose voted verdict is the human majority’s' },
      ],
      rows: (p.reliability?.bins ?? []).map((b, i, all) => ({ bin: `${num(b.lo, 1)}–${num(b.hi, 1)}${i === all.length - 1 ? ' (1 included)' : ''}`, lo: b.lo, hi: b.hi, n: b.n, meanConfidence: b.meanConfidence, agreement: b.agreement })),
      empty: p.reliabilityReason ?? 'No item has both a panel confidence and a human majority.',
    },
    {
      id: 'panel-order-sensitivity',
      caption: `Order sensitivity: how far a member's completeness moves when only the item order moves${where}${
        p.orderSensitivity ? ` — ${p.orderSensitivity.grades} shuffled panel grades, ${Math.round(p.orderSensitivity.confidence * 100)}% bootstrap interval over answers (${p.orderSensitivity.resamples} resamples, seed ${p.orderSensitivity.seed})` : ''
      }`,
      columns: [
        { key: 'member', label: 'Member' },
        { key: 'meanAbsDifference', label: 'Mean |Δ completeness|', kind: 'ci', help: "mean over answers of the mean absolute completeness difference between the member's ok samples (each saw its own seeded item order)" },
        { key: 'answers', label: 'Answers', kind: 'int', help: 'answers with at least two ok samples of the member (the bootstrap units)' },
        { key: 'pairs', label: 'Sample pairs', kind: 'int' },
        { key: 'reason', label: 'Note' },
      ],
      rows: (p.orderSensitivity?.members ?? []).map((m) => ({ member: m.judge, meanAbsDifference: m.meanAbsDifference, meanAbsDifferenceLow: m.ci?.[0] ?? null, meanAbsDifferenceHigh: m.ci?.[1] ?? null, answers: m.answers, pairs: m.pairs, reason: m.reason ?? null })),
      empty: 'The panel does not shuffle (shuffle: true gives each sample its own seeded item order), so there is no order sensitivity to show.',
    },
  ];
}

function form(q: URLSearchParams, p: PanelCalibration) {
  const runs = p.panels.find((x) => x.panel === p.panel)?.runs ?? [];
  // The page's own filters ride along, so choosing a panel or a run keeps the report above as it was.
  const keep = ['scale', 'judge', 'humans', 'unverifiable'].flatMap((k) => (q.get(k) ? [<input type="hidden" name={k} value={q.get(k)!} />] : []));
  return (
    <form method="get" class="filters" action="#panel-calibration">
      {keep}
      <SelectField name="panel" label="Panel" options={p.panels.map((x) => x.panel)} selected={p.panel ?? undefined} />
      <SelectField name="run" label="Run" options={runs} selected={p.run ?? undefined} />
      <button type="submit">Show panel</button>
    </form>
  );
}

function view(q: URLSearchParams, p: PanelCalibration): PageSpec {
  const ts = tables(p);
  return {
    title: 'Panel calibration',
    tables: ts,
    body: async () => {
      const [svg] = p.reliability && p.reliability.n > 0 ? await reliabilityCharts([{ bins: p.reliability.bins, o: { xTitle: 'confidence (mean in bin)', yTitle: 'share agreeing with the human majority' } }]) : [];
      return (
        <section id="panel-calibration" class="panel-calibration" aria-labelledby="panel-heading">
          <h2 id="panel-heading">A panel judge: members, vote and confidence</h2>
          {p.panels.length ? form(q, p) : null}
          {p.reason ? (
            <p class="empty">{p.reason}. A panel is a judge file with <code>provider: panel</code>; grade labelled answers with it to see its figures here.</p>
          ) : (
            <>
              <p class="lede">
                Panel <strong>{p.panel}</strong> (members {p.members.join(', ')}) on run <strong>{p.run}</strong>: {p.units} labelled units over {p.answers} answer
                {p.answers === 1 ? '' : 's'}; humans: {p.humans.join(', ') || '—'}; verdict scale, reference the human majority.
              </p>
              {p.excludedExamples > 0 ? (
                <p class="judge-note">
                  Excluded examples: {p.excludedExamples} answer(s) of the run that a member was shown as examples are left out of the panel’s and its members’ figures (the human labels stay).
                </p>
              ) : null}
              {p.note ? (
                <p class="judge-note judge-baseline">
                  Every member is the {p.note}: this is a baseline panel for showing these figures offline, a floor — not a judge to trust.
                </p>
              ) : null}
              {ts.slice(0, 3).map((t) => (
                <DataTable table={t} search={q} />
              ))}
              {svg ? (
                <Figure
                  caption={`Reliability diagram of ${p.panel}: each point is a confidence bin (its mean confidence against the share of its items where the human majority gave the voted verdict), labelled with its n; the dashed diagonal is perfect calibration. ECE ${num(p.reliability!.ece)}.`}
                  svg={svg}
                />
              ) : null}
              <DataTable table={ts[3]!} search={q} />
              <DataTable table={ts[4]!} search={q} />
            </>
          )}
        </section>
      );
    },
  };
}

/** The section as a cached page part (data and body HTML per data version and query, like every report page). */
export async function panelSection(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const ask = { ...(param(q, 'panel') ? { panel: param(q, 'panel')! } : {}), ...(param(q, 'judge') ? { judge: param(q, 'judge')! } : {}), ...(param(q, 'run') ? { run: param(q, 'run')! } : {}) };
  // A panel or run that does not exist is a 404; one that exists but has nothing to show is the section's stated reason.
  if (ask.panel) await chooseJudge(database, ask.panel);
  if (ask.run) await getRun(database, ask.run);
  return cachedPage(database, 'calibration-panel', q, () => pagePanelCalibration(database, ask), (p) => view(q, p));
}

/** `spec` (the calibration page) with the panel section below its body and the section's tables among its downloads. */
export async function withPanelSection(q: URLSearchParams, database: Database, spec: PageSpec): Promise<PageSpec> {
  const section = await panelSection(q, database);
  return {
    ...spec,
    tables: [...spec.tables, ...section.tables],
    body: async () => (
      <>
        {await spec.body()}
        {await section.body()}
      </>
    ),
  };
}
