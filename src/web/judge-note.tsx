import { LEXICAL_BASELINE_NOTE } from '../services/reports.ts';

/**
 * The sentence every report page shows about the judge behind its grades. The lexical baseline (no
 * provider key) is called out in words, so its word-overlap scores are never read as an LLM's.
 */
export function JudgeNote(props: { judge: string | null; baseline: boolean; what?: string }) {
  const what = props.what ?? 'Descriptions graded by';
  if (!props.judge) return <p class="judge-note">{what} no judge yet.</p>;
  return (
    <p class={props.baseline ? 'judge-note judge-baseline' : 'judge-note'}>
      {what} <strong>{props.judge}</strong>
      {props.baseline ? <> — {LEXICAL_BASELINE_NOTE}: scores are a floor, not a judgement.</> : '.'}
    </p>
  );
}

/** Several judges (calibration): each named, the baseline ones with the note. */
export function JudgesNote(props: { judges: readonly string[]; notes: Record<string, string> }) {
  if (props.judges.length === 0) return null;
  return (
    <p class={Object.keys(props.notes).length ? 'judge-note judge-baseline' : 'judge-note'}>
      Judge grades from{' '}
      {props.judges.map((j, i) => (
        <>
          {i ? ', ' : ''}
          <strong>{j}</strong>
          {props.notes[j] ? ` (${props.notes[j]})` : ''}
        </>
      ))}
      .
    </p>
  );
}
