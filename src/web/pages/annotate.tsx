import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../api/context.ts';
import { badInput } from '../../domain/errors.ts';
import { parseRowId } from '../../domain/limits.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../../domain/verdicts.ts';
import { annotationProgress, annotationTask, annotatorLabels, saveAnnotation, saveAnnotations, type AnnotationMark, type AnnotationTask, type Progress } from '../../services/web-annotation.ts';
import { sessionCaller } from '../guard.ts';
import type { Web } from '../index.tsx';
import { renderHtml, respondPage, type PageFrame } from '../respond.tsx';
import { DataTable, type Table } from '../table.tsx';

/**
 * Annotation: the annotator's queue with progress, and one answer at a time with its rubric items
 * (verdict keys 1–4) and its sentences as claims (t/f/u). The judge's verdicts are never loaded. Labels
 * save as the annotator goes (annotate.js, one request per choice); without script the form saves
 * everything on submit. Labels are stored under the annotator's key name; a form or body
 * naming anyone else is refused. Every save is all or nothing (saveAnnotations).
 */

const ITEM_KEYS = ['1', '2', '3', '4'] as const;
const CLAIM_KEYS: Readonly<Record<string, string>> = { true: 't', false: 'f', unverifiable: 'u' };

const answerId = (c: Context): number => parseRowId(c.req.param('id') ?? '', 'answer id');

/** The next unfinished answer after this one (wrapping around), or null. */
export function nextAfter(p: Progress, current: number): number | null {
  const open = p.rows.filter((r) => !r.done && r.answerId !== current);
  return (open.find((r) => r.answerId > current) ?? open[0])?.answerId ?? null;
}

function queueTable(p: Progress): Table {
  return {
    id: 'queue',
    caption: 'Your queue',
    columns: [
      { key: 'answer', label: 'Answer', href: (r) => `/annotate/${r.answerId}` },
      { key: 'run', label: 'Run' },
      { key: 'model', label: 'Model' },
      { key: 'rubric', label: 'Rubric' },
      { key: 'labelled', label: 'Items labelled', render: (r) => `${String(r.labelled)} / ${String(r.items)}` },
      { key: 'done', label: 'Done', render: (r) => (r.done ? 'yes' : 'no') },
    ],
    rows: p.rows,
    empty: 'No description answers with a rubric to annotate.',
  };
}

function TaskForm(props: { t: AnnotationTask; csrf: string; next: number | null }) {
  const { t } = props;
  const labelled = t.items.filter((i) => i.label !== null).length;
  return (
    <form method="post" action={`/annotate/${t.answerId}`} id="annotate" data-answer={String(t.answerId)} data-csrf={props.csrf} data-next={props.next ? `/annotate/${props.next}` : '/annotate'}>
      <input type="hidden" name="_csrf" value={props.csrf} />
      <p class="keys" id="keys-help">
        Keys: <kbd>1</kbd>–<kbd>4</kbd> verdict (correct, partial, incorrect, missing) · <kbd>t</kbd>/<kbd>f</kbd>/<kbd>u</kbd> claim true, false,
        unverifiable · <kbd>j</kbd>/<kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> next/previous · <kbd>n</kbd> next answer. Each choice is saved at once.
      </p>
      <p id="progress" aria-live="polite">
        {labelled} of {t.items.length} items labelled.
      </p>
      <h2>Answer</h2>
      <pre class="answer" aria-label="Answer text">
        {t.text}
      </pre>
      <h2>Rubric items</h2>
      {t.items.map((it, i) => (
        <fieldset class="unit item" data-kind="item" data-key={it.id} aria-describedby="keys-help">
          <legend>
            <span class="unit-no">{i + 1}.</span> {it.text} <span class="weight">(weight {String(it.weight)})</span>
          </legend>
          {ITEM_VERDICTS.map((v, k) => (
            <label class={`choice v-${v}`}>
              <input type="radio" name={`item:${it.id}`} value={v} checked={it.label === v} data-key={ITEM_KEYS[k]} />
              <kbd aria-hidden="true">{ITEM_KEYS[k]}</kbd> {v}
            </label>
          ))}
        </fieldset>
      ))}
      <h2>Claims (the answer’s sentences)</h2>
      {t.claims.map((cl) => (
        <fieldset class="unit claim" data-kind="claim" data-key={String(cl.index)} aria-describedby="keys-help">
          <legend>{cl.text}</legend>
          {CLAIM_VERDICTS.map((v) => (
            <label class={`choice c-${v}`}>
              <input type="radio" name={`claim:${cl.index}`} value={v} checked={cl.label === v} data-key={CLAIM_KEYS[v]} />
              <kbd aria-hidden="true">{CLAIM_KEYS[v]}</kbd> {v}
            </label>
          ))}
        </fieldset>
      ))}
      <p id="save-status" role="status" aria-live="polite"></p>
      <p>
        <button type="submit">Save and go to the next answer</button>
      </p>
      <script src="/static/annotate.js" defer></script>
    </form>
  );
}

/**
 * The no-script form's fields as marks. Anything else is refused rather than skipped (a misspelt field
 * or an `annotator` field must not pass as "saved"): the labels are always the signed-in key's.
 */
export function formMarks(form: Record<string, string | File | Array<string | File>>): AnnotationMark[] {
  const marks: AnnotationMark[] = [];
  const problems: string[] = [];
  for (const [k, raw] of Object.entries(form)) {
    if (k === '_csrf') continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => typeof v !== 'string')) {
      problems.push(`${k}: must be text, not a file`);
      continue;
    }
    for (const v of values as string[]) {
      if (k.startsWith('item:') && k.length > 5) marks.push({ item: k.slice(5), label: v });
      else if (/^claim:\d+$/.test(k)) marks.push({ claim: Number(k.slice(6)), label: v });
      else if (k.startsWith('claim:')) problems.push(`${k}: a claim is claim:<number>`);
      else problems.push(`${k}: unknown field (expected item:<id> or claim:<n>)`);
    }
  }
  if (problems.length) throw badInput(`form: ${problems.join('; ')}; nothing saved`);
  return marks;
}

const Body = z.union([
  z.object({ item: z.string().min(1).max(200), label: z.enum(ITEM_VERDICTS) }).strict(),
  z.object({ claim: z.number().int().min(0), label: z.enum(CLAIM_VERDICTS) }).strict(),
]);

export function registerAnnotationPages(web: Web): void {
  const db = web.api.deps.database;
  const who = (c: Context<AppEnv>) => c.get('caller').name;
  const csrfOf = async (c: Context, frame: PageFrame) => frame.user?.csrf ?? (await sessionCaller(web.auth, c))?.session.csrf ?? '';

  web.page('GET', '/annotate', 'annotate', async (c) => {
    const p = await annotationProgress(db, who(c));
    const table = queueTable(p);
    const q = new URL(c.req.url).searchParams;
    return respondPage(c, await web.frame(c), {
      title: 'Annotate',
      tables: [table],
      body: () => (
        <>
          <p class="lede">
            Annotating as <strong>{p.annotator}</strong>: {p.done} of {p.total} answers done{p.started ? `, ${p.started} started` : ''}. Judges’
            verdicts are hidden here.
          </p>
          {p.next ? (
            <p>
              <a class="button" href={`/annotate/${p.next}`}>
                {p.started || p.done ? 'Resume' : 'Start'} annotating
              </a>
            </p>
          ) : (
            <p>Everything is labelled. Thank you.</p>
          )}
          <DataTable table={table} search={q} />
        </>
      ),
    });
  });

  web.page('GET', '/annotate/:id', 'annotate', async (c) => {
    const id = answerId(c);
    const [t, p] = await Promise.all([annotationTask(db, id, who(c)), annotationProgress(db, who(c))]);
    const frame = await web.frame(c);
    return renderHtml(c, frame, `Annotate ${t.answer}`, <TaskForm t={t} csrf={await csrfOf(c, frame)} next={nextAfter(p, id)} />);
  });

  // Without script: the whole form at once, then on to the next answer.
  web.page('POST', '/annotate/:id', 'annotate', async (c) => {
    const id = answerId(c);
    // The page guard already checked the session's CSRF token and origin (every unsafe method).
    const form = await c.req.parseBody({ all: true });
    await saveAnnotations(db, { answerId: id, annotator: who(c), marks: formMarks(form) });
    const next = nextAfter(await annotationProgress(db, who(c)), id);
    return c.redirect(next ? `/annotate/${next}` : '/annotate', 303);
  });

  web.page('PUT', '/annotate/:id/labels', 'annotate', async (c) => {
    const id = answerId(c);
    const parsed = Body.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) throw badInput(`body: expected {"item","label"} with label ${ITEM_VERDICTS.join('|')} or {"claim","label"} with label ${CLAIM_VERDICTS.join('|')}`);
    const b = parsed.data;
    const r = await saveAnnotation(db, { answerId: id, annotator: who(c), label: b.label, ...('item' in b ? { item: b.item } : { claim: b.claim }) });
    return c.json({ saved: true, ...r }, 200);
  });

  web.page('GET', '/annotate/:id/labels', 'annotate', async (c) => c.json(await annotatorLabels(db, answerId(c), who(c)), 200));
}
