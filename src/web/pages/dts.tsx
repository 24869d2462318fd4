import type { Database } from '../../db/client.ts';
import { describeThenSolveReport, DTS_METRICS, flattenDts, type DtsMetric, type DtsResult } from '../../services/reports.ts';
import type { IntervalPoint } from '../charts.ts';
import { JudgeNote } from '../judge-note.tsx';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { SelectField } from '../select-field.tsx';
import { DataTable, type Table } from '../table.tsx';
import { charts } from './report-charts.ts';
import { cachedPage, oneOf } from './report-page.ts';

/** Describe-then-solve: does a good description go with a good assembly? Wilson intervals per model. */

const MEASURES = ['P(P✓)', 'P(A✓|P✓)', 'P(A✓|P✗)'] as const;

function threshold(q: URLSearchParams): number {
  const t = Number(q.get('threshold') ?? '0.5');
  return Number.isFinite(t) && t >= -1 && t <= 1 ? t : 0.5;
}

export async function dtsPage(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const metric = oneOf<DtsMetric>(q, 'metric', DTS_METRICS, 'neighbour');
  const perception = oneOf(q, 'perception', ['f1', 'label'] as const, 'f1');
  const tau = threshold(q);
  const load = () => describeThenSolveReport(database, { metric, perception, threshold: tau });
  return cachedPage(database, 'describe-then-solve', q, load, (r) => view(q, metric, perception, tau, r));
}

function view(q: URLSearchParams, metric: DtsMetric, perception: 'f1' | 'label', tau: number, r: DtsResult): PageSpec {
  const table: Table = {
    id: 'describe-then-solve',
    caption: `Per model and size bucket (P✓: ${perception === 'f1' ? `description F1 ≥ ${tau}` : 'human label'}; A✓: ${metric} ≥ ${tau})`,
    columns: [
      { key: 'scope', label: 'Scope' },
      { key: 'model', label: 'Model' },
      { key: 'slice', label: 'Size' },
      { key: 'n', label: 'n', kind: 'int' },
      { key: 'perception', label: 'P(P✓)', kind: 'ci' },
      { key: 'answerGivenPerception', label: 'P(A✓|P✓)', kind: 'ci' },
      { key: 'answerGivenNoPerception', label: 'P(A✓|P✗)', kind: 'ci' },
      { key: 'answer', label: 'P(A✓)', kind: 'ci' },
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
      <label for="threshold">Threshold τ</label>
      <input id="threshold" name="threshold" type="number" step="0.05" min="-1" max="1" value={String(tau)} />
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
          if (p.estimate !== null) points.push({ group: model, measure: MEASURES[i]!, estimate: p.estimate, low: p.ci?.[0] ?? null, high: p.ci?.[1] ?? null });
        });
      }
      const svg = points.length ? (await charts('intervalCharts', [{ points, o: { measures: [...MEASURES], xTitle: 'probability (95% Wilson interval)' } }]))[0]! : null;
      return (
        <>
          {form}
          <JudgeNote judge={r.judge} baseline={r.judgeBaseline} what="Description F1 (perception) from grades by" />
          <p class="lede">
            Each assembly is paired with its run’s description of the same puzzle ({r.paired} paired, {r.unpaired} without a graded description). P(A✓|P✓)
            well above P(A✓|P✗) means the models that see the picture right also assemble it right.
          </p>
          {svg ? <Figure caption="Per model: P(P✓), P(A✓|P✓) and P(A✓|P✗) with 95% Wilson intervals." svg={svg} /> : null}
          <DataTable table={table} search={q} />
        </>
      );
    },
  };
}
