import type { Database } from '../db/client.ts';
import { CampaignMarkSchema, type CampaignMark, type CampaignScale, type QueueReason, type WorkspaceSpec } from '../domain/campaigns.ts';
import { AssayError, badInput } from '../domain/errors.ts';
import { SCALES } from '../domain/labels.ts';
import { sentenceSpans } from '../scoring/description/sentences.ts';
import { campaignWorkspace, getCampaign, saveCampaignLabels } from './campaigns/index.ts';
import { getRubric } from './rubrics.ts';
import { getAnswer } from './answers.ts';
import { expectedLabels } from './label-expect.ts';
import { annotationTask } from './annotation-task.ts';
import { annotatorLabels } from './annotator-labels.ts';
import { PLAIN_RATING_K, saveAnnotations, type AnnotationMark } from './web-annotation.ts';

/**
 * The annotation workspace of one answer for one annotator: what to show (the answer, its sentences with
 * their places in the text, the rubric items, the reference unless the campaign hides it, the rubric's
 * picture path) and which scales to ask, with the annotator's own labels so far. Without a campaign the
 * plain queue asks item verdicts and claim marks, plus pass/fail and a 1..5 rating when asked for. A
 * judge's output is never read here. Saving goes to the campaign (saveCampaignLabels: its k, its slots)
 * or to the plain labels (saveAnnotation); either way one mark per save, all or nothing.
 */

/** A WorkspaceSpec (domain/campaigns.ts), or the plain queue's (no campaign, no queue reason). */
export type AnySpec = Omit<WorkspaceSpec, 'campaignId' | 'why'> & { campaignId: number | null; campaignName: string | null; why: QueueReason | null };

export const PLAIN_BINARY_QUESTION = 'Does the answer describe the picture correctly (nothing important wrong or missing)?';
export const PLAIN_ANCHORS = [
  'Wrong or unrelated: little of it matches the picture',
  'Mostly wrong: a few things match, much is false or missing',
  'Partly right: the main scene is there, with clear errors or gaps',
  'Mostly right: small errors or omissions only',
  'Complete and correct: everything that matters, nothing false',
];

/** The plain queue's spec: verdicts and claims, plus the whole-answer scales the page asked for. */
export function plainSpec(extra: ReadonlyArray<'binary' | 'numeric'>): AnySpec {
  const scales: CampaignScale[] = ['verdict', 'claims', ...(['binary', 'numeric'] as const).filter((s) => extra.includes(s))];
  return {
    campaignId: null,
    campaignName: null,
    why: null,
    scales,
    hideReference: false,
    ...(extra.includes('binary') ? { binaryQuestion: PLAIN_BINARY_QUESTION } : {}),
    ...(extra.includes('numeric') ? { numeric: { k: PLAIN_RATING_K, anchors: PLAIN_ANCHORS } } : {}),
  };
}

export interface WorkspaceTask {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  text: string;
  spec: AnySpec;
  rubric: { slug: string; title: string; version: number; image: string | null };
  /** null when the campaign hides it (reference-blind). */
  reference: string | null;
  items: Array<{ id: string; text: string; weight: number; label: string | null }>;
  /** `stale`: a mark stored at this index but given on another sentence (claim-marks.ts) — shown as such, not as this sentence's label. */
  claims: Array<{ index: number; text: string; start: number; end: number; label: string | null; stale: string | null }>;
  /** pass/fail, null until given; absent scale → undefined in the spec. */
  binary: 'pass' | 'fail' | null;
  rating: number | null;
  /** The first control without a label, in page order (items, claims, pass/fail, rating); null when all are given. */
  firstOpen: string | null;
}

async function specFor(database: Database, q: { answerId: number; annotator: string; campaign?: string | number; extra: ReadonlyArray<'binary' | 'numeric'> }): Promise<AnySpec> {
  if (q.campaign === undefined) return plainSpec(q.extra);
  const campaign = await getCampaign(database, q.campaign);
  if (!campaign.annotators.includes(q.annotator)) throw new AssayError('forbidden', `campaign '${campaign.name}': '${q.annotator}' is not one of its annotators`);
  const w = await campaignWorkspace(database, { campaign: campaign.id, answerId: q.answerId });
  return { ...w, campaignName: campaign.name };
}

export async function workspaceTask(
  database: Database,
  q: { answerId: number; annotator: string; campaign?: string | number; extra?: ReadonlyArray<'binary' | 'numeric'> },
): Promise<WorkspaceTask> {
  const spec = await specFor(database, { ...q, extra: q.extra ?? [] });
  // In a campaign the annotator sees what they said in it (a plain label where it has none), never another campaign's.
  const [t, mine] = await Promise.all([annotationTask(database, q.answerId, q.annotator, spec.campaignId), annotatorLabels(database, q.answerId, q.annotator, spec.campaignId)]);
  const rubric = await getRubric(database, t.rubric.slug);
  const asks = (s: CampaignScale) => spec.scales.includes(s);
  const claims = sentenceSpans(t.text).map((s, index) => ({ index, text: s.text, start: s.start, end: s.end, label: mine.claims[index] ?? null, stale: t.claims[index]?.stale?.label ?? null }));
  const binaryValue = mine.binary === undefined ? null : SCALES.binary.normalise(mine.binary);
  const binary = binaryValue === null ? null : binaryValue.value === 1 ? 'pass' : 'fail';
  const rating = mine.numeric === undefined ? null : Number(mine.numeric);
  const open = [
    ...(asks('verdict') ? t.items.filter((i) => i.label === null).map((i) => `item:${i.id}`) : []),
    ...(asks('claims') ? claims.filter((c) => c.label === null).map((c) => `claim:${c.index}`) : []),
    ...(asks('binary') && binary === null ? ['binary'] : []),
    ...(asks('numeric') && rating === null ? ['numeric'] : []),
  ];
  return {
    answerId: t.answerId,
    answer: t.answer,
    run: t.run,
    model: t.model,
    text: t.text,
    spec,
    rubric: { ...t.rubric, image: rubric.image },
    reference: spec.hideReference ? null : rubric.reference,
    items: t.items,
    claims,
    binary,
    rating,
    firstOpen: open[0] ?? null,
  };
}

const toCampaignMark = (m: AnnotationMark): CampaignMark =>
  'item' in m
    ? { scale: 'verdict', item: m.item, label: m.label as Extract<CampaignMark, { scale: 'verdict' }>['label'] }
    : 'claim' in m
      ? { scale: 'claims', claim: m.claim, label: m.label as Extract<CampaignMark, { scale: 'claims' }>['label'] }
      : 'binary' in m
        ? { scale: 'binary', label: m.binary }
        : { scale: 'numeric', label: m.rating };

/**
 * A mark with what the page showed for its unit when it was rendered or last saved (`prev`; null: no
 * label): a save over a unit that changed since is refused as a conflict (label-expect.ts).
 */
export type WorkspaceMark = AnnotationMark & { prev?: string | number | null };

/**
 * Saves marks of the workspace (one per control change; the no-script form sends them all): to the
 * campaign when there is one, else to the plain labels. All or nothing either way, and conditional on
 * the marks' `prev`.
 */
export async function saveWorkspaceMarks(
  database: Database,
  q: { answerId: number; annotator: string; campaign?: string | number; marks: WorkspaceMark[] },
): Promise<{ created: number; updated: number; done?: boolean }> {
  const expected = expectedLabels(q.marks);
  if (q.campaign === undefined) return saveAnnotations(database, { answerId: q.answerId, annotator: q.annotator, marks: q.marks, expected });
  const marks = q.marks.map(toCampaignMark);
  // The form's labels are checked against the scales' vocabularies here, before anything is written.
  const problems = marks.flatMap((m) => {
    const r = CampaignMarkSchema.safeParse(m);
    return r.success ? [] : [`${m.scale}: ${JSON.stringify(m.label)} is not a label of this scale`];
  });
  if (problems.length) throw badInput(`answer ${q.answerId}: ${problems.join('; ')}; nothing saved`);
  return saveCampaignLabels(database, { campaign: q.campaign, answerId: q.answerId, annotator: q.annotator, marks, expected });
}

/** The annotator's labels of one answer as the workspace shows them: plain, or the campaign's (annotatorLabels). */
export async function workspaceLabels(database: Database, q: { answerId: number; annotator: string; campaign?: string | number }): Promise<Awaited<ReturnType<typeof annotatorLabels>>> {
  const campaignId = q.campaign === undefined ? null : (await getCampaign(database, q.campaign)).id;
  return annotatorLabels(database, q.answerId, q.annotator, campaignId);
}

/** The stored `image` of the rubric an answer is annotated against (null without one). */
export async function answerPicture(database: Database, answerId: number): Promise<string | null> {
  const a = await getAnswer(database, answerId);
  if (!a.rubric) return null;
  return (await getRubric(database, a.rubric)).image;
}
