import type { Database } from '../../db/client.ts';
import { describeThenSolveReport, DTS_DEFAULT_THRESHOLD, DTS_METRICS, flattenDts, type DtsMetric, type DtsResult } from '../../services/reports.ts';
import type { IntervalPoint } from '../charts.ts';
import { JudgeNote } from '../judge-note.tsx';
import { PolicyNote } from '../policy-note.tsx';
import { REPORT_UNVERIFIABLE_DEFAULT, UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { SelectField } from '../select-field.tsx';
import { DataTable, type Table } from '../table.tsx';
import { charts } from './report-charts.ts';
import { cachedPage, numberIn, oneOf, param } from './report-page.ts';
import { declareQuery } from '../page-query.ts';
import { reportModels } from '../../services/report-models.ts';
import { gradedJudges, type GradedJudge } from '../../services/report-judges.ts';
import { requireNamed } from '../../services/filter-values.ts';
import { colourScale, modelColours, type ColourMap } from '../model-colours.ts';
import { ciOrSmallN, isSmallN, SmallNNote } from '../small-n.tsx';

/** Describe-then-solve: does a good description go with a good assembly? Wilson intervals per model. */

const MEASURES = ['P(P✓)', 'P(A✓|P✓)', 'P(A✓|P✗)'] as const;

/** τ for both sides, in the API's range (proximity can be negative); anything else is a message, not 0.5. */
const threshold = (q: URLSearchParams): number => numberIn(q, 'threshold', -1, 1, DTS_DEFAULT_THRESHOLD);

/** The page's query parameters (page-query.ts: any other name is refused). */
export const DTS_QUERY = declareQuery(['metric', 'perception', 'threshold', 'judge', 'unverifiable'], { downloads: true });

export async function dtsPage(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const metric = oneOf<DtsMetric>(q, 'metric', DTS_METRICS, 'neighbour');
  const perception = oneOf(q, 'perception', ['f1', 'label'] as const, 'f1');
  const tau = threshold(q);
  const unverifiable = oneOf(q, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
  // The judge whose grades are the perception: ?judge= (blank: the default, the judge with the most answers
  // graded ok), as the API's; one that names nothing is a 404 (filter-values.ts), not the default's report.
  const judge = param(q, 'judge');
  if (judge) await requireNamed(database, { judge }, { judge: 'judge' });
  const load = async () => {
    const [r, models, judges] = await Promise.all([
      describeThenSolveReport(database, { metric, perception, threshold: tau, unverifiable, ...(judge ? { judge } : {}) }),
      reportModels(database),
      gradedJudges(database),
    ]);
    return { r, models, judges };
  };
  return cachedPage(database, 'describe-then-solve', q, load, ({ r, models, judges }) => view(q, { metric, perception, tau, judge }, r, judges, modelColours(models)));
}

interface Choice {
  metric: DtsMetric;
  perception: 'f1' | 'label';
  tau: number;
  /** The judge asked for; undefined: the default. */
  judge: string | undefined;
}

/** The judge picker's options: the default first (it names the judge it stands for), then every judge with ok grades. */
function judgeOptions(judges: readonly GradedJudge[], defaultJudge: string | null, chosen: string | undefined) {
  const plural = (n: number) => `${n} answer${n === 1 ? '' : 's'} graded`;
  // A judge asked for that graded nothing ok is still the one shown selected, never the default in its place.
  const unlisted = chosen !== undefined && !judges.some((j) => j.slug === chosen) ? [{ value: chosen, label: `${chosen} (no answers graded)` }] : [];
  return [
    { value: '', label: defaultJudge ? `default: ${defaultJudge} (most answers graded)` : 'default: no judge has graded yet' },
    ...judges.map((j) => ({ value: j.slug, label: `${j.slug} (${plural(j.answers)}${j.provider === 'imported' ? ', imported scores' : ''})` })),
    ...unlisted,
  ];
}

function view(q: URLSearchParams, choice: Choice, r: DtsResult, judges: readonly GradedJudge[], colours: ColourMap): PageSpec {
  const { metric, perception, tau } = choice;
  // Without ?judge= the report's judge is the default; with it, the report names the judge asked for.
  const defaultJudge = choice.judge === undefined ? r.judge : (judges.find((j) => j.provider !== 'imported')?.slug ?? null);
  const table: Table = {
    id: 'describe-then-solve',
    caption: `Per model and size bucket (P✓: ${perception === 'f1' ? `description F1 ≥ ${tau}` : 'human label'}; A✓: ${metric} ≥ ${tau})`,
    columns: [
      { key: 'scope', label: 'Scope' },
      { key: 'model', label: 'Model' },
      { key: 'slice', label: 'Size' },
      { key: 'n', label: 'n', kind: 'int' },
      { key: 'perception', label: 'P(P✓)', kind: 'ci', render: ciOrSmallN('perception', 'perceptionN') },
      { key: 'answerGivenPerception', label: 'P(A✓|P✓)', kind: 'ci', render: ciOrSmallN('answerGivenPerception', 'answerGivenPerceptionN') },
      { key: 'answerGivenNoPerception', label: 'P(A✓|P✗)', kind: 'ci', render: ciOrSmallN('answerGivenNoPerception', 'answerGivenNoPerceptionN') },
      { key: 'answer', label: 'P(A✓)', kind: 'ci', render: ciOrSmallN('answer', 'answerN') },
    ],
    rows: flattenDts(r.report),
    empty: r.reason ?? 'No pairs.',
  };
  const form = (
    <form method="get" class="filters">
      <SelectField name="metric" label="Assembly metric" options={DTS_METRICS} selected={metric} />
      <SelectField
        name="perception"
        label="Perception from"
        options={[
          { value: 'f1', label: 'description F1' },
          { value: 'label', label: 'human label' },
        ]}
        selected={perception}
      />
      <SelectField name="judge" label="Judge (description F1)" options={judgeOptions(judges, defaultJudge, choice.judge)} selected={choice.judge ?? ''} />
      <label for="threshold">Threshold τ</label>
      <input id="threshold" name="threshold" type="number" step="0.05" min="-1" max="1" value={String(tau)} />
      {param(q, 'unverifiable') ? <input type="hidden" name="unverifiable" value={r.unverifiable} /> : null}
      <button type="submit">Show</button>
    </form>
  );
  return {
    title: 'Describe-then-solve',
    tables: [table],
    body: async () => {
      const points: IntervalPoint[] = [];
      for (const [model, g] of Object.entries(r.report?.byModel ?? {})) {
        const ps = [g.perception, g.answerGivenPerception, g.answerGivenNoPerception];
        ps.forEach((p, i) => {
          if (p.estimate !== null) points.push({ group: model, measure: MEASURES[i]!, estimate: p.estimate, low: p.ci?.[0] ?? null, high: p.ci?.[1] ?? null, small: isSmallN(p.trials) });
        });
      }
      const o = { measures: [...MEASURES], xTitle: 'probability', colours: colourScale(colours, points.map((p) => p.group)) };
      const svg = points.length ? (await charts('intervalCharts', [{ points, o }]))[0]! : null;
      return (
        <>
          {form}
          <JudgeNote judge={r.judge} baseline={r.judgeBaseline} what="Description F1 (perception) from grades by" />
          {/* Human-label perception reads no F1: the policy only matters for perception from F1. */}
          {perception === 'f1' ? <PolicyNote unverifiable={r.unverifiable} unverifiableNote={r.unverifiableNote} /> : null}
          <p class="lede">
            Each assembly is paired with its run’s description of the same puzzle ({r.paired} paired, {r.unpaired - r.ambiguous} without a{' '}
            {perception === 'f1' ? 'graded' : 'human-labelled'} description, {r.ambiguous} left out as ambiguous). P(A✓|P✓) well above P(A✓|P✗) means the models that see
            the picture right also assemble it right.
          </p>
          <p class="note pairing-rule">
            Pairing: a describe-then-solve answer with its own description; an assembly with the one description of its puzzle in its run
            {perception === 'f1' ? ` graded ok by ${r.judge ?? 'the judge'}` : ' with a human-label majority'} (else of its picture’s rubric). An assembly whose run holds two or
            more such descriptions is left out (ambiguous): which one it followed is unknown.
          </p>
          <SmallNNote />
          {svg ? <Figure caption="Per model (one colour per model, as on every chart): P(P✓), P(A✓|P✓) and P(A✓|P✗) with 95% Wilson intervals; hollow dots rest on fewer than 5 answers." svg={svg} /> : null}
          <DataTable table={table} search={q} />
        </>
      );
    },
  };
}
