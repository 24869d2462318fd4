import type { CalibrationReport, JudgeReport, PairStats } from '../../analysis/calibration/index.ts';
import type { Database } from '../../db/client.ts';
import { LABEL_SCALES, type LabelScale } from '../../domain/labels.ts';
import { HUMANS_MODES, type HumansMode } from '../../domain/campaigns.ts';
import { pageCalibration, type PageCalibration } from '../../services/web-calibration.ts';
import { num } from '../format.ts';
import { JudgesNote } from '../judge-note.tsx';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { SelectField } from '../select-field.tsx';
import { DataTable, type Row, type Table } from '../table.tsx';
import { charts, type HeatmapInput } from './report-charts.ts';
import { cachedPage, oneOf, param } from './report-page.ts';
import { declareQuery } from '../page-query.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { PANEL_PARAMS, withPanelSection } from './calibration-panel.tsx';
import { ciOrSmallN, SMALL_N_RULE } from '../small-n.tsx';
import { HUMAN_RANGE_RULE } from '../../analysis/calibration/trust.ts';
import { REPORT_UNVERIFIABLE_DEFAULT, UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import { PolicyNote } from '../policy-note.tsx';

/** Judge calibration against stored human labels: kappa, confusion, per model, per item, judge vs judge, human–human. */

const pair = (p: PairStats | undefined): Row => ({
  n: p?.n ?? 0,
  agreement: p?.agreement ?? null,
  kappa: p?.kappa?.kappa ?? null,
  kappaLow: p?.kappa?.ci?.[0] ?? null,
  kappaHigh: p?.kappa?.ci?.[1] ?? null,
  weightedKappa: p?.weightedKappa?.kappa ?? null,
  weightedKappaLow: p?.weightedKappa?.ci?.[0] ?? null,
  weightedKappaHigh: p?.weightedKappa?.ci?.[1] ?? null,
  pearson: p?.pearson?.r ?? null,
  pearsonLow: p?.pearson?.ci?.[0] ?? null,
  pearsonHigh: p?.pearson?.ci?.[1] ?? null,
  bias: p?.bias ?? null,
  mae: p?.mae ?? null,
  reason: p?.reason ?? p?.kappa?.reason ?? null,
});

const PAIR_COLUMNS_LABELS: Table['columns'] = [
  { key: 'n', label: 'Units', kind: 'int' },
  { key: 'agreement', label: 'Agreement', kind: 'num', help: 'share of units with the same label' },
  { key: 'kappa', label: 'Kappa', kind: 'ci', help: "Cohen's kappa with its 95% interval", render: ciOrSmallN('kappa', 'n') },
  { key: 'weightedKappa', label: 'Weighted kappa', kind: 'ci', help: 'kappa weighted by verdict points (ordered scale)', render: ciOrSmallN('weightedKappa', 'n') },
];

// The numeric scale's figures (a judge's F1 against people's ratings): kappas are of labels, not values.
const NUMERIC_COLUMNS: Table['columns'] = [
  { key: 'n', label: 'Units', kind: 'int' },
  { key: 'pearson', label: 'Pearson r', kind: 'ci', help: 'Pearson correlation with its 95% interval', render: ciOrSmallN('pearson', 'n') },
  { key: 'bias', label: 'Bias', kind: 'num', help: 'mean of judge − humans: positive when the judge is more lenient' },
  { key: 'mae', label: 'MAE', kind: 'num', help: 'mean absolute difference' },
];

function tables(r: CalibrationReport): Table[] {
  const PAIR_COLUMNS = r.scale === 'numeric' ? NUMERIC_COLUMNS : PAIR_COLUMNS_LABELS;
  const judges: Table = {
    id: 'judges',
    caption: 'Each judge against the human majority',
    columns: [
      { key: 'judge', label: 'Judge' },
      ...PAIR_COLUMNS,
      { key: 'humanLevel', label: 'Human level', kind: 'num', help: 'median of each annotator against the majority of the others (same statistic as the reading)' },
      { key: 'withinHumanRange', label: 'Within human range', help: HUMAN_RANGE_RULE },
    ],
    rows: r.judgeReports.map((j) => ({
      judge: j.rater,
      ...pair(j.vsMajority),
      humanLevel: j.trust.humanLevel,
      withinHumanRange: j.trust.withinHumanRange === null ? null : j.trust.withinHumanRange ? 'yes' : 'no',
    })),
  };
  // Each annotator against the majority of the others: the distribution the human level is the median of.
  const leaveOneOut: Table = {
    id: 'leave-one-out',
    caption: 'Each annotator against the majority of the other annotators (leave one annotator out)',
    columns: [{ key: 'annotator', label: 'Annotator' }, ...PAIR_COLUMNS],
    rows: Object.entries(r.humanCeiling.leaveOneOut).map(([annotator, p]) => ({ annotator, ...pair(p) })),
    empty: 'Needs two annotators on shared answers.',
  };
  const byModel: Table = {
    id: 'by-model',
    caption: 'Agreement per graded model',
    columns: [{ key: 'judge', label: 'Judge' }, { key: 'model', label: 'Graded model' }, ...PAIR_COLUMNS],
    rows: r.judgeReports.flatMap((j) => Object.entries(j.byModel).map(([model, cmp]) => ({ judge: j.rater, model, ...pair(cmp.vsMajority) }))),
  };
  const items: Table = {
    id: 'items',
    caption: 'Rubric items with the most disagreement (judge vs human majority)',
    columns: [
      { key: 'judge', label: 'Judge' },
      // Rubrics share item ids ('sky' in ~25 ImageInWords rubrics): a row is one rubric's item.
      { key: 'rubric', label: 'Rubric' },
      { key: 'item', label: 'Item' },
      { key: 'n', label: 'Units', kind: 'int' },
      { key: 'disagreements', label: 'Disagreements', kind: 'int' },
      { key: 'disagreement', label: 'Share', kind: 'num' },
      { key: 'topConfusion', label: 'Commonest confusion', render: (x) => String(x.topConfusion ?? '—') },
    ],
    rows: r.judgeReports.flatMap((j) =>
      j.byItem.map((it) => ({
        judge: j.rater,
        rubric: it.rubric,
        item: it.item,
        n: it.n,
        disagreements: it.disagreements,
        disagreement: it.disagreement,
        topConfusion: it.topConfusion ? `judge ${it.topConfusion.judge} / humans ${it.topConfusion.majority} (${it.topConfusion.count})` : null,
      })),
    ),
  };
  const judgeJudge: Table = {
    id: 'judge-judge',
    caption: `Judge against judge${r.judgeJudge?.alpha.alpha !== undefined ? ` (Krippendorff alpha ${num(r.judgeJudge.alpha.alpha)})` : ''}`,
    columns: [{ key: 'pair', label: 'Judges' }, ...PAIR_COLUMNS],
    rows: Object.entries(r.judgeJudge?.pairs ?? {}).map(([k, p]) => ({ pair: k, ...pair(p) })),
    empty: 'Only one judge has graded the labelled answers.',
  };
  const a = r.humanCeiling.alpha;
  const humans: Table = {
    id: 'human-human',
    caption: `Human against human: Krippendorff alpha (${a.level}) ${num(a.alpha)}${a.ci ? ` [${num(a.ci[0])}, ${num(a.ci[1])}]` : ''} over ${a.units} units${a.reason ? ` — ${a.reason}` : ''}`,
    columns: [{ key: 'pair', label: 'Annotators' }, ...PAIR_COLUMNS],
    rows: Object.entries(r.humanCeiling.pairs).map(([k, p]) => ({ pair: k, ...pair(p) })),
    empty: 'No answer has labels from two annotators yet: human–human agreement needs overlap.',
  };
  return [judges, byModel, items, judgeJudge, humans, leaveOneOut];
}

function confusion(j: JudgeReport): HeatmapInput | null {
  const cm = j.vsMajority.confusion;
  if (!cm || cm.matrix.length === 0) return null;
  return { categories: cm.categories.map(String), matrix: cm.matrix.map((row) => [...row]), o: { rowTitle: `judge ${j.rater}`, colTitle: 'human majority' } };
}

/** The page's query parameters, its panel section's among them (page-query.ts: any other name is refused). */
export const CALIBRATION_QUERY = declareQuery(['scale', 'judge', 'humans', 'unverifiable', ...PANEL_PARAMS], { downloads: true });

export async function calibrationPage(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const scale = oneOf<LabelScale>(q, 'scale', LABEL_SCALES, 'verdict');
  const judge = param(q, 'judge');
  // ?humans=majority|adjudicated: the human side as one reference rater (docs/annotation.md).
  const humans = oneOf<HumansMode>(q, 'humans', HUMANS_MODES, 'each');
  // The policy the judges' F1 is read under on the numeric scale, as GET /api/reports/calibration reads it
  // (services/report-policy.ts); a bad value is a 400 on every scale, as on the API.
  const unverifiable = oneOf<UnverifiablePolicy>(q, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
  // A judge named but unknown is a 404, not the report of no judge passing for its report; one that exists
  // but graded none of the labelled answers is a report without a judge side, said so: the API's rule (filter-values.ts).
  if (judge) await requireNamed(database, { judge }, { judge: 'judge' });
  const load = () => pageCalibration(database, { scale, humans, unverifiable, ...(judge ? { judge } : {}) });
  // A panel judge's section (calibration-panel.tsx) follows the report.
  return withPanelSection(q, database, await cachedPage(database, 'calibration', q, load, (cal) => view(q, scale, judge, cal)));
}

function view(q: URLSearchParams, scale: LabelScale, judge: string | undefined, cal: PageCalibration): PageSpec {
  const ts = cal.report ? tables(cal.report) : [];
  const form = (
    <form method="get" class="filters">
      <SelectField name="scale" label="Scale" options={LABEL_SCALES} selected={scale} />
      <SelectField name="humans" label="Humans" options={HUMANS_MODES} selected={oneOf<HumansMode>(q, 'humans', HUMANS_MODES, 'each')} />
      {/* Only the numeric scale reads F1; the choice is offered (and kept) on every scale, so switching scale keeps it. */}
      <SelectField
        name="unverifiable"
        label="Unverifiable claims (numeric F1)"
        options={[
          { value: 'count', label: 'count (counted in correctness)' },
          { value: 'exclude', label: 'exclude (excluded from correctness)' },
        ]}
        selected={cal.policy.unverifiable}
      />
      <label for="judge">Judge</label>
      <input id="judge" name="judge" value={judge ?? ''} placeholder="all judges" />
      <button type="submit">Show</button>
    </form>
  );
  return {
    title: 'Judge calibration',
    tables: ts,
    body: async () => {
      if (!cal.report) {
        return (
          <>
            {form}
            <p class="empty">
              {cal.reason}. Label answers on the <a href="/annotate">annotation page</a> (or import labels with <code>bin/assay import labels</code>), and grade
              the same answers with a judge.
            </p>
          </>
        );
      }
      const r = cal.report;
      // The policy's note is in the report's notes (as the API's); the policy line above says it already.
      const notes = scale === 'numeric' ? r.notes.filter((n) => n !== cal.policy.unverifiableNote) : r.notes;
      // Anchored judges: each judge's own example answers are not in its figures (docs/judges.md).
      const excluded = Object.entries(cal.excludedExamples ?? {}).filter(([j]) => r.judges.includes(j));
      const inputs = r.judgeReports.map(confusion);
      const drawn = await charts('heatmaps', inputs.filter((x) => x !== null));
      const svgs = inputs.map((x) => (x === null ? null : drawn.shift()!));
      return (
        <>
          {form}
          <p class="lede">
            {r.units} labelled units over {r.answers} answers; humans: {r.humans.join(', ') || '—'}; judges: {r.judges.join(', ') || '—'}. Reference:{' '}
            {r.consensus}.{/* Labels set aside (another scale, claim marks) are counted in the notes below, as the API's. */}
          </p>
          <JudgesNote judges={r.judges} notes={cal.judgeNotes} />
          {/* Only the numeric scale reads the judges' F1: its line says the policy and what it left out. */}
          {scale === 'numeric' ? <PolicyNote unverifiable={cal.policy.unverifiable} unverifiableNote={cal.policy.unverifiableNote} /> : null}
          <p class="note human-range-rule">Within human range: {HUMAN_RANGE_RULE}. {SMALL_N_RULE}</p>
          {excluded.length ? (
            <p class="excluded-examples">
              Left out as examples (answers a judge was shown with the people's verdicts are not in its figures): {excluded.map(([j, n]) => `${j} ${n}`).join(', ')}.
            </p>
          ) : null}
          <DataTable table={ts[0]!} search={q} />
          <div class="charts">
            {r.judgeReports.map((j, i) =>
              svgs[i] ? <Figure caption={`Confusion matrix of ${j.rater} (rows) against the human majority (columns).`} svg={svgs[i]!} /> : null,
            )}
          </div>
          {ts.slice(1).map((t) => (
            <DataTable table={t} search={q} />
          ))}
          {notes.length ? (
            <ul class="notes">
              {notes.map((n) => (
                <li>{n}</li>
              ))}
            </ul>
          ) : null}
        </>
      );
    },
  };
}
