import type { PolicyInfo } from '../services/report-policy.ts';

/**
 * The sentence a page of description F1 shows about its unverifiable-claims policy (services/report-policy.ts):
 * every F1 on it is of one definition of correctness, and grades it could not read under it are counted.
 */
export function PolicyNote(props: PolicyInfo) {
  return (
    <p class={props.unverifiableNote ? 'note' : 'judge-note'}>
      Description F1 with unverifiable claims <strong>{props.unverifiable === 'exclude' ? 'excluded from' : 'counted in'}</strong> correctness (
      <code>?unverifiable={props.unverifiable === 'exclude' ? 'count' : 'exclude'}</code> for the other policy).
      {props.unverifiableNote ? <> {props.unverifiableNote}.</> : null}
    </p>
  );
}
