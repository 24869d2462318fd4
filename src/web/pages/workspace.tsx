import type { QueueReason } from '../../domain/campaigns.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../../domain/verdicts.ts';
import type { WorkspaceTask } from '../../services/workspace.ts';

/**
 * The annotation workspace (annotate.tsx serves it): the status bar (progress, save state), the picture
 * (zoomable) and the reference, the answer with the current claim marked, and the controls — each scale
 * of the spec a set of radio fieldsets that work with the keyboard alone (annotate.js; the keys are
 * listed on the page). Without script it is a plain form saved on submit. Nothing of a judge's output is
 * passed in, so nothing of it can be shown.
 */

export const ITEM_KEYS = ['1', '2', '3', '4'] as const;
export const CLAIM_KEYS: Readonly<Record<string, string>> = { true: 't', false: 'f', unverifiable: 'u' };
export const BINARY_KEYS: Readonly<Record<string, string>> = { pass: 'p', fail: 'f' };
/** Why a campaign answer is where it is in the queue (domain/campaigns.ts QUEUE_REASONS), in words. */
export const QUEUE_WHY: Readonly<Record<QueueReason, string>> = {
  disagreement: 'disagreement (judges or panel samples disagree on it)',
  audit: 'audit (a seeded random draw of the others)',
  rest: 'rest (the others, in answer order)',
};

/** Rating r is key r; a rating of 10 is key 0. */
export const ratingKey = (r: number): string => String(r % 10);

export interface WorkspaceProps {
  t: WorkspaceTask;
  csrf: string;
  /** Where `n` and the submit button go next. */
  next: string;
  /** The query to keep on every request of the page (campaign, scales). */
  query: string;
  pictureUrl: string | null;
}

/** The counts the status bar shows; annotate.js recomputes the same line after each save. */
export function progressLine(t: WorkspaceTask): string {
  const parts: string[] = [];
  const asks = (s: string) => t.spec.scales.includes(s as never);
  if (asks('verdict')) parts.push(`Items ${t.items.filter((i) => i.label !== null).length}/${t.items.length}`);
  if (asks('claims')) parts.push(`Claims ${t.claims.filter((c) => c.label !== null).length}/${t.claims.length}`);
  if (asks('binary')) parts.push(`Pass/fail ${t.binary ?? '—'}`);
  if (asks('numeric')) parts.push(`Rating ${t.rating === null ? '—' : String(t.rating)}`);
  return parts.join(' · ');
}

/**
 * The answer text with each claim's sentence wrapped, so the current claim can be marked in place. A
 * sentence is shown with its wrapped lines joined (its claim text); between sentences a blank line stays
 * a paragraph break and a newline a line break (field lines such as "Grid: 6 x 9").
 */
function AnswerText(props: { t: WorkspaceTask }) {
  const { text, claims } = props.t;
  const gap = (g: string) => (/\n[ \t]*\r?\n/.test(g) ? '\n\n' : g.includes('\n') ? '\n' : g === '' ? '' : ' ');
  const out: unknown[] = [];
  let at = 0;
  for (const c of claims) {
    if (c.start > at && at > 0) out.push(gap(text.slice(at, c.start)));
    out.push(
      <span class="claim-text" id={`claim-text-${c.index}`}>
        {c.text}
      </span>,
    );
    at = c.end;
  }
  return (
    <p class="ws-answer-text" id="answer-text" aria-label="Answer text">
      {claims.length ? out : text}
    </p>
  );
}

function Keys(props: { t: WorkspaceTask }) {
  const asks = (s: string) => props.t.spec.scales.includes(s as never);
  const k = props.t.spec.numeric?.k ?? 0;
  return (
    <section class="ws-keys" id="keys-help" aria-label="Keyboard keys">
      <strong>Keys</strong> (each choice is saved at once)
      <dl>
        <dt><kbd>j</kbd> <kbd>↓</kbd> / <kbd>k</kbd> <kbd>↑</kbd></dt>
        <dd>next / previous control</dd>
        {asks('verdict') ? (<><dt><kbd>1</kbd>–<kbd>4</kbd></dt><dd>item verdict: correct, partial, incorrect, missing</dd></>) : null}
        {asks('claims') ? (<><dt><kbd>t</kbd> <kbd>f</kbd> <kbd>u</kbd></dt><dd>claim: true, false, unverifiable</dd></>) : null}
        {asks('binary') ? (<><dt><kbd>p</kbd> <kbd>f</kbd></dt><dd>whole answer: pass, fail</dd></>) : null}
        {asks('numeric') ? (<><dt><kbd>1</kbd>–<kbd>{ratingKey(k)}</kbd></dt><dd>rating 1–{k}{k === 10 ? ' (0 is 10)' : ''}</dd></>) : null}
        <dt><kbd>+</kbd> / <kbd>−</kbd></dt>
        <dd>zoom the picture in / out (or click it; <kbd>Tab</kbd> to it and scroll with the arrows)</dd>
        <dt><kbd>n</kbd></dt>
        <dd>next answer</dd>
      </dl>
    </section>
  );
}

function Radios(props: { name: string; values: readonly string[]; checked: string | null; keyOf: (v: string, i: number) => string; text?: (v: string, i: number) => string }) {
  return (
    <>
      {props.values.map((v, i) => (
        <label class={`choice v-${v} c-${v}`}>
          <input type="radio" name={props.name} value={v} checked={props.checked === v} data-key={props.keyOf(v, i)} />
          <kbd aria-hidden="true">{props.keyOf(v, i)}</kbd> {props.text ? props.text(v, i) : v}
        </label>
      ))}
    </>
  );
}

/** The labels the form shows, by field name (a unit without a label is absent). */
function seenLabels(t: WorkspaceTask): Record<string, string> {
  const out: Record<string, string> = {};
  for (const it of t.items) if (it.label !== null) out[`item:${it.id}`] = it.label;
  for (const cl of t.claims) if (cl.label !== null) out[`claim:${cl.index}`] = cl.label;
  if (t.binary !== null) out.binary = t.binary;
  if (t.rating !== null) out.rating = String(t.rating);
  return out;
}

function Controls(props: WorkspaceProps) {
  const { t } = props;
  const asks = (s: string) => t.spec.scales.includes(s as never);
  const numeric = t.spec.numeric;
  return (
    <form class="ws-pane ws-controls" method="post" action={`/annotate/${t.answerId}${props.query}`} id="annotate" aria-label="Labels">
      <input type="hidden" name="_csrf" value={props.csrf} />
      {/* What the form was rendered with: a submit over labels changed since is refused (annotate.tsx withSeen). */}
      <input type="hidden" name="_seen" value={JSON.stringify(seenLabels(t))} />
      <Keys t={t} />
      {asks('verdict') ? <h2>Rubric items</h2> : null}
      {asks('verdict')
        ? t.items.map((it, i) => (
            <fieldset class="unit item" data-kind="item" data-key={it.id} data-unit={`item:${it.id}`} aria-describedby="keys-help">
              <legend>
                <span class="unit-no">{i + 1}.</span> {it.text} <span class="weight">(weight {String(it.weight)})</span>
              </legend>
              <Radios name={`item:${it.id}`} values={ITEM_VERDICTS} checked={it.label} keyOf={(_v, k) => ITEM_KEYS[k]!} />
            </fieldset>
          ))
        : null}
      {asks('claims') ? <h2>Claims (the answer’s sentences)</h2> : null}
      {asks('claims')
        ? t.claims.map((cl) => (
            <fieldset class="unit claim" data-kind="claim" data-key={String(cl.index)} data-unit={`claim:${cl.index}`} aria-describedby="keys-help">
              <legend>
                <span class="unit-no">{cl.index + 1}.</span> {cl.text}
              </legend>
              {cl.stale !== null ? <p class="stale">Your mark '{cl.stale}' here was given on another sentence (the answer's split changed): re-mark this sentence.</p> : null}
              <Radios name={`claim:${cl.index}`} values={CLAIM_VERDICTS} checked={cl.label} keyOf={(v) => CLAIM_KEYS[v]!} />
            </fieldset>
          ))
        : null}
      {asks('binary') || asks('numeric') ? <h2>The whole answer</h2> : null}
      {asks('binary') ? (
        <fieldset class="unit binary" data-kind="binary" data-key="binary" data-unit="binary" aria-describedby="keys-help">
          <legend>{t.spec.binaryQuestion ?? ''}</legend>
          <Radios name="binary" values={['pass', 'fail']} checked={t.binary} keyOf={(v) => BINARY_KEYS[v]!} />
        </fieldset>
      ) : null}
      {asks('numeric') && numeric ? (
        <fieldset class="unit numeric anchors" data-kind="numeric" data-key="numeric" data-unit="numeric" data-k={String(numeric.k)} aria-describedby="keys-help">
          <legend>Rating, 1–{numeric.k}</legend>
          <Radios
            name="rating"
            values={numeric.anchors.map((_a, i) => String(i + 1))}
            checked={t.rating === null ? null : String(t.rating)}
            keyOf={(_v, i) => ratingKey(i + 1)}
            text={(v, i) => `${v} — ${numeric.anchors[i]!}`}
          />
        </fieldset>
      ) : null}
      <p>
        <button type="submit">Save and go to the next answer</button>
      </p>
    </form>
  );
}

export function Workspace(props: WorkspaceProps) {
  const { t } = props;
  return (
    <div
      class="workspace"
      id="workspace"
      data-answer={String(t.answerId)}
      data-csrf={props.csrf}
      data-next={props.next}
      data-query={props.query}
      data-first-open={t.firstOpen ?? ''}
    >
      <link rel="stylesheet" href="/static/annotate.css" />
      <div class="ws-status" role="region" aria-label="Progress and save state">
        <span>
          Answer <strong>{t.answer}</strong> · run {t.run} · model {t.model}
          {t.spec.campaignName ? ` · campaign ${t.spec.campaignName}` : ''}
          {t.spec.why ? (
            <span class="ws-why" data-why={t.spec.why}>
              {' '}
              · queued: {QUEUE_WHY[t.spec.why]}
            </span>
          ) : null}
        </span>
        <span id="progress" aria-live="polite">
          {progressLine(t)}
        </span>
        <span id="save-status" class="ws-save" role="status" aria-live="polite">
          {t.firstOpen === null ? 'Everything labelled and saved.' : 'Each choice is saved as you make it.'}
        </span>
      </div>
      <section class="ws-pane ws-source" aria-label="Picture and reference">
        <figure class="ws-picture" id="picture">
          {props.pictureUrl ? (
            <>
              <div class="ws-picture-view" id="picture-view" tabindex={0} aria-label="The picture (click or + to zoom in)">
                <img id="picture-img" src={props.pictureUrl} alt={`The picture of rubric ${t.rubric.title}`} />
              </div>
              <div class="ws-zoom">
                <button type="button" id="zoom-out" aria-label="Zoom out">−</button>
                <span id="zoom-level" aria-live="polite">100%</span>
                <button type="button" id="zoom-in" aria-label="Zoom in">+</button>
              </div>
            </>
          ) : (
            <p class="ws-hidden">This rubric has no picture file to show.</p>
          )}
        </figure>
        <section class="ws-reference" id="reference">
          <h2>Reference</h2>
          {t.reference === null ? <p class="ws-hidden">Hidden in this campaign (reference-blind): judge the answer against the picture.</p> : <p>{t.reference}</p>}
        </section>
      </section>
      <section class="ws-pane ws-answer" aria-label="Answer">
        <h2>Answer</h2>
        <AnswerText t={t} />
      </section>
      <Controls {...props} />
      <script src="/static/annotate.js" defer></script>
    </div>
  );
}
