import type { Database } from '../../db/client.ts';
import { createAdapter, type ProviderKeys } from '../../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge, loadJudgeById } from '../../judges/config.ts';
import { loadImage } from '../../judges/image.ts';
import type { JudgeImage } from '../../judges/prompt.ts';
import type { Judge } from '../../judges/types.ts';
import { checkGradeRequest } from './checks.ts';
import { defaultJudge } from './default-judge.ts';
import type { GradeDetail } from './grade-detail.ts';
import type { GradeRequest } from './resolve.ts';
import { createGradingSession, type SessionOptions } from './session.ts';

/**
 * One answer, one judge: the `assay grade` and POST /api/grades use case, and the verbs those fronts
 * need before it (which judge, built with which keys; the picture it sees).
 */

/** A judge ready to grade: its config and the provider adapter built from the keys. */
export interface OpenedJudge {
  judge: LoadedJudge;
  adapter: Judge;
}

/**
 * The judge a front names, or the default judge (defaultJudge(keys)) when it names none; an unknown
 * judge is bad input. `from: 'network'` accepts judge ids in judges/ only — a request must never name
 * a file.
 */
export function namedJudge(ref: string | undefined, keys: ProviderKeys, o: { from: 'network' | 'local' }): LoadedJudge {
  const id = ref ?? defaultJudge(keys).ref;
  return o.from === 'network' ? loadJudgeById(id) : loadJudge(id);
}

/** The judge with its provider adapter: a missing key is bad input here, before any database is touched. */
export async function openJudge(judge: LoadedJudge, keys: ProviderKeys): Promise<OpenedJudge> {
  return { judge, adapter: await createAdapter(judge, keys) };
}

/** The picture a judge sees beside the rubric, from a file (unsupported types and missing files are bad input). */
export function judgeImage(path: string): JudgeImage {
  return loadImage(path);
}

export type GradeAnswerRequest = GradeRequest & Omit<SessionOptions, 'judge'> & { judge: SessionOptions['judge'] | OpenedJudge };

export async function gradeAnswer(database: Database, req: GradeAnswerRequest): Promise<GradeDetail> {
  // Bad input is refused before the session registers the judge or a rubric document is versioned.
  await checkGradeRequest(database, req);
  const opened = typeof req.judge === 'object' && 'adapter' in req.judge ? req.judge : null;
  const session = await createGradingSession(database, opened ? { ...req, judge: opened.judge, adapter: opened.adapter } : { ...req, judge: req.judge as SessionOptions['judge'] });
  return session.grade(req);
}
