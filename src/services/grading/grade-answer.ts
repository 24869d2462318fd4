import type { Database } from '../../db/client.ts';
import { createAdapter, type ProviderKeys } from '../../judges/adapters/index.ts';
import type { LoadedJudge } from '../../judges/config.ts';
import { type AnyLoadedJudge, isLoadedPanel, loadJudgeOrPanel } from '../../judges/panel-config.ts';
import { loadImage } from '../../judges/image.ts';
import type { JudgeImage } from '../../judges/prompt.ts';
import type { Judge } from '../../judges/types.ts';
import { checkGradeRequest } from './checks.ts';
import { defaultJudge } from './default-judge.ts';
import type { GradeDetail } from './grade-detail.ts';
import type { GradeRequest } from './resolve.ts';
import { asJudge, judgesOf } from './judge-row.ts';
import { openGradingSession } from './panel-session.ts';
import type { SessionOptions } from './session.ts';

/**
 * One answer, one judge: the `assay grade` and POST /api/grades use case, and the verbs those fronts
 * need before it (which judge, built with which keys; the picture it sees).
 */

/** A judge ready to grade: its config and the provider adapter built from the keys (a panel: one per member judge). */
export interface OpenedJudge {
  judge: AnyLoadedJudge;
  /**
   * By member judge id for a panel (ids are unique within a panel); one entry (the judge's own) otherwise.
   * Not by config hash: grading resolves an anchored judge's examples, which changes its hash.
   */
  adapters: Map<string, Judge>;
}

/**
 * The judge a front names, or the default judge (defaultJudge(keys)) when it names none; an unknown
 * judge is bad input. `from: 'network'` accepts judge ids in judges/ only — a request must never name
 * a file.
 */
export function namedJudge(ref: string | undefined, keys: ProviderKeys, o: { from: 'network' | 'local' }): AnyLoadedJudge {
  const id = ref ?? defaultJudge(keys).ref;
  return loadJudgeOrPanel(id, { byIdOnly: o.from === 'network' });
}

/** The judge with its provider adapter(s): a missing key is bad input here, before any database is touched. */
export async function openJudge(judge: AnyLoadedJudge, keys: ProviderKeys): Promise<OpenedJudge> {
  const adapters = new Map<string, Judge>();
  // A panel member's missing key names the panel too (asJudge).
  for (const { judge: j, who } of judgesOf(judge)) adapters.set(j.config.id, await asJudge(who, j, () => createAdapter(j, keys)));
  return { judge, adapters };
}

/** The picture a judge sees beside the rubric, from a file (unsupported types and missing files are bad input). */
export function judgeImage(path: string): JudgeImage {
  return loadImage(path);
}

export type GradeAnswerRequest = GradeRequest & Omit<SessionOptions, 'judge'> & { judge: SessionOptions['judge'] | OpenedJudge };

const isOpened = (j: GradeAnswerRequest['judge']): j is OpenedJudge => typeof j === 'object' && 'adapters' in j;

export async function gradeAnswer(database: Database, req: GradeAnswerRequest): Promise<GradeDetail> {
  // Bad input is refused before the session registers the judge or a rubric document is versioned.
  await checkGradeRequest(database, req);
  const { judge, ...rest } = req;
  const session = isOpened(judge)
    ? await openGradingSession(database, { ...rest, judge: judge.judge, adapterFor: async (j) => judge.adapters.get(j.config.id)! })
    : await openGradingSession(database, { ...rest, judge: typeof judge === 'string' ? loadJudgeOrPanel(judge) : judge });
  return session.grade(req);
}
