import { basename } from 'node:path';
import { unknownCostCalls, unknownCostText } from '../../services/grading/grade-cost.ts';
import type { AnswerGradeView } from '../../services/web-answer.ts';
import { int, num, usd } from '../format.ts';
import { JudgeNote } from '../judge-note.tsx';
import { DataTable, type Table } from '../table.tsx';

/** One judge's grade of an answer: scores, the rubric table, the claims, meta, judge, prompt and usage. */

interface MetaView {
  orientation?: { stated: string | null; correct: boolean };
  grid?: { stated: { rows: number; cols: number } | null; correct: boolean; transposed: boolean };
  pieceCount?: { stated: number | null; error: number | null };
}

const yesNo = (b: boolean | undefined) => (b === undefined ? '—' : b ? 'correct' : 'not correct');

export function gradeTables(view: AnswerGradeView, i: number): Table[] {
  const g = view.grade;
  const text = new Map((view.rubricVersion?.items ?? []).map((it) => [it.id, it.text]));
  const m = g.meta as MetaView;
  const scores: Table = {
    id: `scores-${i}`,
    caption: 'Scores',
    columns: [
      { key: 'completeness', label: 'Completeness', kind: 'num', help: 'Σ weight·points / Σ weight' },
      { key: 'correctness', label: 'Correctness', kind: 'num', help: 'true claims / all claims' },
      { key: 'f1', label: 'F1', kind: 'num' },
      { key: 'orientation', label: 'Orientation' },
      { key: 'grid', label: 'Grid' },
      { key: 'pieceCount', label: 'Piece count' },
    ],
    rows: [
      {
        completeness: g.completeness,
        correctness: g.correctness,
        f1: g.f1,
        orientation: m.orientation ? `${m.orientation.stated ?? 'not stated'} (${yesNo(m.orientation.correct)})` : null,
        grid: m.grid ? `${m.grid.stated ? `${m.grid.stated.rows} × ${m.grid.stated.cols}` : 'not stated'} (${yesNo(m.grid.correct)}${m.grid.transposed ? ', transposed' : ''})` : null,
        pieceCount: m.pieceCount ? `${m.pieceCount.stated ?? 'not stated'} (error ${num(m.pieceCount.error)})` : null,
      },
    ],
  };
  const items: Table = {
    id: `rubric-${i}`,
    caption: 'Rubric items',
    columns: [
      { key: 'item', label: 'Item' },
      { key: 'text', label: 'Rubric says' },
      { key: 'weight', label: 'Weight', kind: 'num', render: (r) => String(r.weight) },
      { key: 'verdict', label: 'Verdict', render: (r) => <span class={`verdict v-${String(r.verdict)}`}>{String(r.verdict)}</span> },
      { key: 'evidence', label: 'What the answer said' },
      { key: 'points', label: 'Points', kind: 'num' },
    ],
    rows: g.items.map((it) => ({ item: it.id, text: text.get(it.id) ?? null, weight: it.weight, verdict: it.verdict, evidence: it.evidence ?? null, points: it.points })),
    empty: g.status === 'ok' ? 'This judge returned no item verdicts (a reference-match judge).' : `No verdicts: the grade failed (${g.status}).`,
  };
  const claims: Table = {
    id: `claims-${i}`,
    caption: 'Claims',
    columns: [
      { key: 'claim', label: 'Claim' },
      { key: 'verdict', label: 'Verdict', render: (r) => <span class={`verdict v-${String(r.verdict)}`}>{String(r.verdict)}</span> },
    ],
    rows: g.claims.map((c) => ({ claim: c.text ?? null, verdict: c.verdict })),
    empty: 'No claims.',
  };
  return [scores, items, claims, ...(g.panel ? panelTables(g.panel, i) : [])];
}

type PanelView = NonNullable<AnswerGradeView['grade']['panel']>;

/** A panel judge's report (docs/panels.md): every member sample, the votes per item, pairwise kappa. */
function panelTables(p: PanelView, i: number): Table[] {
  const order = new Map((p.itemOrders ?? []).map((o) => [`${o.judge}#${o.sample}`, o.order.join(', ')]));
  const members: Table = {
    id: `panel-members-${i}`,
    caption: `Panel members (${p.okSamples} of ${p.samples} samples ok, quorum ${p.quorum}, vote ${p.vote})`,
    columns: [
      { key: 'sample', label: 'Sample' },
      { key: 'status', label: 'Status' },
      { key: 'completeness', label: 'Completeness', kind: 'num' },
      { key: 'correctness', label: 'Correctness', kind: 'num' },
      ...(p.itemOrders ? [{ key: 'order', label: 'Item order shown' }] : []),
    ],
    rows: p.members.map((m) => ({ sample: `${m.judge}#${m.sample}`, status: m.status, completeness: m.completeness, correctness: m.correctness, order: order.get(`${m.judge}#${m.sample}`) ?? null })),
  };
  const votes: Table = {
    id: `panel-votes-${i}`,
    caption: `Votes per item (mean item agreement ${num(p.agreement.meanItemAgreement)})`,
    columns: [
      { key: 'item', label: 'Item' },
      { key: 'verdict', label: 'Vote', render: (r) => (r.verdict === null ? '—' : <span class={`verdict v-${String(r.verdict)}`}>{String(r.verdict)}</span>) },
      { key: 'correct', label: 'correct', kind: 'int' },
      { key: 'partial', label: 'partial', kind: 'int' },
      { key: 'incorrect', label: 'incorrect', kind: 'int' },
      { key: 'missing', label: 'missing', kind: 'int' },
      { key: 'agreement', label: 'Agreement', kind: 'num', help: 'share of ok samples that gave the voted verdict' },
    ],
    rows: p.items.map((it) => ({ item: it.id, verdict: it.verdict, ...it.votes, agreement: it.agreement })),
  };
  const kappa: Table = {
    id: `panel-kappa-${i}`,
    caption: 'Pairwise kappa between ok samples',
    columns: [
      { key: 'a', label: 'Sample A' },
      { key: 'b', label: 'Sample B' },
      { key: 'kappa', label: "Cohen's κ", kind: 'num' },
      { key: 'reason', label: 'Note' },
    ],
    rows: p.agreement.pairwiseKappa.map((k) => ({ a: k.a, b: k.b, kappa: k.kappa, reason: k.reason ?? null })),
    empty: 'Fewer than two ok samples.',
  };
  return [members, votes, kappa];
}

export function GradeSection(props: { grade: AnswerGradeView; tables: Table[]; search: URLSearchParams }) {
  const g = props.grade.grade;
  const u = g.usage;
  const reason = typeof g.meta.reason === 'string' ? g.meta.reason : null;
  const promptHash = typeof g.meta.promptHash === 'string' ? g.meta.promptHash : null;
  // Calls sent with no usage reported (docs/data-safety.md#calls-of-unknown-cost): the tokens leave them out, the
  // cost is unknown and says why, in `assay grade`'s words (grade-cost.ts); so is a model's with no price.
  const unknownCalls = unknownCostCalls(g.meta);
  const costUnknown = unknownCostText(u.costUsd, g.meta);
  return (
    <section class="grade" aria-label={`Grade by ${g.judge.id}`}>
      <h2>
        Grade by {g.judge.id} <span class={`status s-${g.status}`}>{g.status}</span>
      </h2>
      {g.judge.provider === 'lexical' ? <JudgeNote judge={g.judge.id} baseline={true} what="Graded by" /> : null}
      <dl class="facts">
        <dt>Judge</dt>
        <dd>
          {g.judge.provider} / {g.judge.model}
        </dd>
        <dt>Prompt</dt>
        <dd>
          {props.grade.prompt ? basename(props.grade.prompt) : '—'}
          {promptHash ? ` (hash ${promptHash.slice(0, 12)})` : ''}
        </dd>
        <dt>Rubric version</dt>
        <dd>{g.rubric ? `${g.rubric.id} v${g.rubric.version}` : '—'}</dd>
        <dt>Tokens</dt>
        <dd>
          {unknownCalls ? 'at least ' : ''}
          {int(u.input)} in, {int(u.output)} out{u.cacheRead ? `, ${int(u.cacheRead)} cache read` : ''}
          {u.cacheWrite ? `, ${int(u.cacheWrite)} cache write` : ''}
        </dd>
        <dt>Cost</dt>
        <dd>{costUnknown ?? usd(u.costUsd)}</dd>
        {reason ? (
          <>
            <dt>Reason</dt>
            <dd>{reason}</dd>
          </>
        ) : null}
      </dl>
      {props.tables.map((t) => (
        <DataTable table={t} search={props.search} />
      ))}
    </section>
  );
}
