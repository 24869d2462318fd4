import type { Context } from 'hono';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { AppEnv } from '../../api/context.ts';
import { AssayError, badInput } from '../../domain/errors.ts';
import { assertUniqueKeys } from '../../domain/json-check.ts';
import { parseRowId } from '../../domain/limits.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../../domain/verdicts.ts';
import { getCampaign, nextForAnnotator } from '../../services/campaigns/index.ts';
import { annotationProgress, type Progress } from '../../services/annotation-progress.ts';
import { PLAIN_RATING_K, type AnnotationMark } from '../../services/web-annotation.ts';
import { answerPicture, saveWorkspaceMarks, workspaceLabels, workspaceTask, type WorkspaceMark } from '../../services/workspace.ts';
import { sessionCaller } from '../guard.ts';
import type { Web } from '../index.tsx';
import { declareQuery, NO_QUERY } from '../page-query.ts';
import { renderHtml, respondPage, SECURITY_HEADERS, type PageFrame } from '../respond.tsx';
import { rubricPictureFile } from '../rubric-picture.ts';
import { DataTable, type Row, type Table } from '../table.tsx';
import { Workspace } from './workspace.tsx';

/**
 * Annotation: the annotator's queue with progress, and the workspace of one answer (workspace.tsx):
 * the picture, the reference (unless a campaign hides it), the answer and the controls of the spec's
 * scales. Without `?campaign=` it is the plain queue: item verdicts and claim marks, plus pass/fail and a
 * 1..5 rating with `?scale=binary` / `?scale=numeric`. The judge's output is never loaded. Labels save
 * as the annotator goes (annotate.js, one request per choice); without script the form saves
 * everything on submit. Labels are stored under the annotator's key name; a form or body naming anyone
 * else is refused. Every save is all or nothing.
 */

const answerId = (c: Context): number => parseRowId(c.req.param('id') ?? '', 'answer id');

/** The next unfinished answer after this one (wrapping around), or null. */
export function nextAfter(p: Progress, current: number): number | null {
  const open = p.rows.filter((r) => !r.done && r.answerId !== current);
  return (open.find((r) => r.answerId > current) ?? open[0])?.answerId ?? null;
}

function queueTable(p: Progress, keep: string, extra: readonly Extra[]): Table {
  return {
    id: 'queue',
    caption: 'Your queue',
    columns: [
      { key: 'answer', label: 'Answer', href: (r) => `/annotate/${r.answerId}${keep}` },
      { key: 'run', label: 'Run' },
      { key: 'model', label: 'Model' },
      { key: 'rubric', label: 'Rubric' },
      { key: 'labelled', label: 'Items labelled', render: (r) => `${String(r.labelled)} / ${String(r.items)}` },
      { key: 'claimsMarked', label: 'Claims marked', render: (r) => `${String(r.claimsMarked)} / ${String(r.claims)}` },
      ...(extra.includes('binary') ? [{ key: 'binary', label: 'Pass/fail given', render: (r: Row) => (r.binary ? 'yes' : 'no') }] : []),
      ...(extra.includes('numeric') ? [{ key: 'rating', label: 'Rating given', render: (r: Row) => (r.rating ? 'yes' : 'no') }] : []),
      { key: 'done', label: 'Done', help: 'every asked scale labelled: items, claims, and pass/fail and rating when asked', render: (r) => (r.done ? 'yes' : 'no') },
    ],
    rows: p.rows,
    empty: 'No description answers with a rubric to annotate.',
  };
}

/**
 * The no-script form's fields as marks. Anything else is refused rather than skipped (a misspelt field
 * or an `annotator` field must not pass as "saved"): the labels are always the signed-in key's.
 */
export function formMarks(form: Record<string, string | File | Array<string | File>>): AnnotationMark[] {
  const marks: AnnotationMark[] = [];
  const problems: string[] = [];
  for (const [k, raw] of Object.entries(form)) {
    if (k === '_csrf' || k === '_seen') continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => typeof v !== 'string')) {
      problems.push(`${k}: must be text, not a file`);
      continue;
    }
    for (const v of values as string[]) {
      if (k.startsWith('item:') && k.length > 5) marks.push({ item: k.slice(5), label: v });
      else if (/^claim:\d+$/.test(k)) marks.push({ claim: Number(k.slice(6)), label: v });
      else if (k.startsWith('claim:')) problems.push(`${k}: a claim is claim:<number>`);
      else if (k === 'binary') marks.push({ binary: v });
      else if (k === 'rating' && /^\d{1,2}$/.test(v)) marks.push({ rating: Number(v) });
      else if (k === 'rating') problems.push(`rating: '${v}' is not a whole number`);
      else problems.push(`${k}: unknown field (expected item:<id>, claim:<n>, binary or rating)`);
    }
  }
  if (problems.length) throw badInput(`form: ${problems.join('; ')}; nothing saved`);
  return marks;
}

// `prev`: the unit's label as the page showed it (null: none); a save over a label changed since is a 409.
/**
 * The no-script form's marks with what the form was rendered with (its `_seen` field, workspace.tsx), so
 * its submit is conditional like the script's saves; a form without the field saves as before.
 */
export function withSeen(marks: AnnotationMark[], form: Record<string, unknown>): WorkspaceMark[] {
  const raw = form._seen;
  if (raw === undefined) return marks;
  let seen: unknown;
  try {
    seen = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    seen = undefined;
  }
  if (typeof seen !== 'object' || seen === null || Array.isArray(seen) || Object.values(seen).some((v) => typeof v !== 'string')) throw badInput('_seen: must be the JSON object of labels the form was rendered with; nothing saved');
  // JSON.parse keeps the last of a field given twice: which label the form showed cannot be told.
  assertUniqueKeys(raw as string, '_seen');
  const was = seen as Record<string, string>;
  const field = (m: AnnotationMark) => ('item' in m ? `item:${m.item}` : 'claim' in m ? `claim:${m.claim}` : 'binary' in m ? 'binary' : 'rating');
  return marks.map((m) => {
    const prev = was[field(m)] ?? null;
    return { ...m, prev: 'rating' in m && prev !== null ? Number(prev) : prev };
  });
}

const Body = z.union([
  z.object({ item: z.string().min(1).max(200), label: z.enum(ITEM_VERDICTS), prev: z.enum(ITEM_VERDICTS).nullable().optional() }).strict(),
  z.object({ claim: z.number().int().min(0), label: z.enum(CLAIM_VERDICTS), prev: z.enum(CLAIM_VERDICTS).nullable().optional() }).strict(),
  z.object({ binary: z.enum(['pass', 'fail']), prev: z.enum(['pass', 'fail']).nullable().optional() }).strict(),
  z.object({ rating: z.number().int().min(1).max(10), prev: z.number().int().min(1).max(10).nullable().optional() }).strict(),
]);
const BODY_HELP = `body: expected {"item","label"} with label ${ITEM_VERDICTS.join('|')}, {"claim","label"} with label ${CLAIM_VERDICTS.join('|')}, {"binary": "pass"|"fail"} or {"rating": 1..k}, each with an optional "prev" (the label the page showed, null for none)`;

const EXTRA_SCALES = ['binary', 'numeric'] as const;
type Extra = (typeof EXTRA_SCALES)[number];

/** The page's query: a campaign (by id or name), or the plain queue's extra scales; and the text to keep on links. */
interface PageQuery {
  campaign?: number | string;
  extra: Extra[];
  keep: string;
}

/** The query of the annotation routes (page-query.ts): ?scale= may be given twice (binary and numeric). */
const WORK_QUERY = declareQuery(['campaign', 'scale'], { repeatable: ['scale'] });
/** The queue page adds `finished` (a campaign's last answer taken) and its table's downloads. */
const QUEUE_QUERY = declareQuery(['campaign', 'scale', 'finished'], { repeatable: ['scale'], downloads: true });

export function pageQuery(q: URLSearchParams): PageQuery {
  const scales = q.getAll('scale').flatMap((s) => s.split(','));
  const bad = scales.filter((s) => !(EXTRA_SCALES as readonly string[]).includes(s));
  if (bad.length) throw badInput(`scale: must be binary or numeric (the plain queue always asks item verdicts and claims), got '${bad[0]!}'`);
  const campaign = q.get('campaign') ?? undefined;
  if (campaign !== undefined && !/^[\w.-]{1,100}$/.test(campaign)) throw badInput(`campaign: '${campaign.slice(0, 100)}' is not a campaign id or name`);
  if (campaign !== undefined && scales.length) throw badInput('scale: a campaign names its own scales; leave scale out');
  const extra = EXTRA_SCALES.filter((s) => scales.includes(s));
  const pairs: Array<[string, string]> = [...(campaign !== undefined ? [['campaign', campaign] as [string, string]] : []), ...extra.map((s): [string, string] => ['scale', s])];
  const keep = new URLSearchParams(pairs).toString();
  return { ...(campaign !== undefined ? { campaign: /^\d+$/.test(campaign) ? Number(campaign) : campaign } : {}), extra, keep: keep ? `?${keep}` : '' };
}

export function registerAnnotationPages(web: Web): void {
  const db = web.api.deps.database;
  const who = (c: Context<AppEnv>) => c.get('caller').name;
  const csrfOf = async (c: Context, frame: PageFrame) => frame.user?.csrf ?? (await sessionCaller(web.auth, c))?.session.csrf ?? '';
  const campaignOf = (q: PageQuery) => (q.campaign !== undefined ? { campaign: q.campaign } : {});

  web.page('GET', '/annotate', 'annotate', QUEUE_QUERY, async (c, q) => {
    const pq = pageQuery(q);
    const frame = await web.frame(c);
    if (pq.campaign !== undefined) {
      // A campaign that does not exist is a 404 here, not a page offering to take an answer from it.
      await getCampaign(db, pq.campaign);
      const finished = q.get('finished') === '1';
      return renderHtml(
        c,
        frame,
        'Annotate',
        <>
          <p class="lede">
            Annotating as <strong>{who(c)}</strong> in campaign <strong>{String(pq.campaign)}</strong>. Judges’ verdicts are hidden here.
          </p>
          {finished ? <p>Nothing is left for you in this campaign. Thank you.</p> : null}
          <form method="post" action={`/annotate/next${pq.keep}`}>
            <input type="hidden" name="_csrf" value={await csrfOf(c, frame)} />
            <button type="submit">Take my next answer</button>
          </form>
        </>,
      );
    }
    const p = await annotationProgress(db, who(c), { extra: pq.extra });
    const table = queueTable(p, pq.keep, pq.extra);
    return respondPage(c, frame, {
      title: 'Annotate',
      tables: [table],
      body: () => (
        <>
          <p class="lede">
            Annotating as <strong>{p.annotator}</strong>: {p.done} of {p.total} answers done{p.started ? `, ${p.started} started` : ''}. Judges’
            verdicts are hidden here. Add <code>?scale=binary</code> and/or <code>?scale=numeric</code> to ask a whole-answer pass/fail and a 1–
            {PLAIN_RATING_K} rating as well.
          </p>
          {p.next ? (
            <p>
              <a class="button" href={`/annotate/${p.next}${pq.keep}`}>
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

  // A campaign's next answer is taken (assigned) for the annotator, so it is a POST (CSRF-checked).
  web.page('POST', '/annotate/next', 'annotate', WORK_QUERY, async (c, q) => {
    const pq = pageQuery(q);
    if (pq.campaign === undefined) throw badInput('campaign: required (the plain queue needs no taking: open /annotate)');
    const n = await nextForAnnotator(db, { campaign: pq.campaign, annotator: who(c) });
    return c.redirect(n ? `/annotate/${n.answerId}${pq.keep}` : `/annotate${pq.keep}${pq.keep ? '&' : '?'}finished=1`, 303);
  });

  web.page('GET', '/annotate/:id', 'annotate', WORK_QUERY, async (c, q) => {
    const id = answerId(c);
    const pq = pageQuery(q);
    const t = await workspaceTask(db, { answerId: id, annotator: who(c), ...campaignOf(pq), extra: pq.extra });
    const frame = await web.frame(c);
    let next = `/annotate${pq.keep}`;
    if (pq.campaign === undefined) {
      const after = nextAfter(await annotationProgress(db, who(c), { extra: pq.extra }), id);
      if (after) next = `/annotate/${after}${pq.keep}`;
    }
    const picture = rubricPictureFile(t.rubric.image) ? `/annotate/${id}/picture` : null;
    return renderHtml(c, frame, `Annotate ${t.answer}`, <Workspace t={t} csrf={await csrfOf(c, frame)} next={next} query={pq.keep} pictureUrl={picture} />);
  });

  // Without script: the whole form at once, then on to the next answer.
  web.page('POST', '/annotate/:id', 'annotate', WORK_QUERY, async (c, q) => {
    const id = answerId(c);
    const pq = pageQuery(q);
    // The page guard already checked the session's CSRF token and origin (every unsafe method).
    const form = await c.req.parseBody({ all: true });
    await saveWorkspaceMarks(db, { answerId: id, annotator: who(c), ...campaignOf(pq), marks: withSeen(formMarks(form), form) });
    if (pq.campaign !== undefined) return c.redirect(`/annotate${pq.keep}`, 303);
    const next = nextAfter(await annotationProgress(db, who(c), { extra: pq.extra }), id);
    return c.redirect(next ? `/annotate/${next}${pq.keep}` : `/annotate${pq.keep}`, 303);
  });

  web.page('PUT', '/annotate/:id/labels', 'annotate', WORK_QUERY, async (c, q) => {
    const id = answerId(c);
    const pq = pageQuery(q);
    const parsed = Body.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) throw badInput(BODY_HELP);
    const r = await saveWorkspaceMarks(db, { answerId: id, annotator: who(c), ...campaignOf(pq), marks: [parsed.data] });
    return c.json({ saved: true, created: r.created === 1, ...(r.done !== undefined ? { done: r.done } : {}) }, 200);
  });

  web.page('GET', '/annotate/:id/labels', 'annotate', WORK_QUERY, async (c, q) => c.json(await workspaceLabels(db, { answerId: answerId(c), annotator: who(c), ...campaignOf(pageQuery(q)) }), 200));

  // The rubric's picture, looked up only inside the allowed roots (rubric-picture.ts).
  web.page('GET', '/annotate/:id/picture', 'annotate', NO_QUERY, async (c) => {
    const id = answerId(c);
    const found = rubricPictureFile(await answerPicture(db, id));
    if (!found) throw new AssayError('not_found', `answer ${id}: its rubric has no picture file to show`);
    return c.body(new Uint8Array(readFileSync(found.file)), 200, { ...SECURITY_HEADERS, 'Content-Type': found.type, 'Cache-Control': 'private, max-age=3600' });
  });
}
