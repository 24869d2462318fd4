import { beforeAll, expect, it } from 'vitest';
import { grades, judges, labels } from '../../../src/db/schema.ts';
import { loadReliability } from '../../../src/services/grading/calibration-reliability.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedRun } from '../../jobs/helpers.ts';

/**
 * The reliability diagram leaves an error answer (status error: the model call failed) out: its grade is
 * no judge's verdict of a model's answer. Before, its grade's items were read while its people's labels
 * were not (calibrationLabelSet leaves them out), so they were counted as having no human label, unsaid.
 * By hand: judge conf-e grades a0 (ok) barn correct .9, cow-in-barn missing .8, and a1 (error) barn correct .3.
 * People: a0 barn correct ×2 (majority correct: agrees), a0 cow-in-barn correct/missing (tie), a1 barn
 * missing ×2. Points: (.9, agrees) only: n 1, ECE |1 − .9| = .1; left out: 1 tie, nothing unlabelled;
 * the notes count 1 error answer.
 */
const NOTE =
  "1 answer stored with status error (the model call failed) left out: there is no answer, so its grades (stored before grading skipped such answers, or imported) and people's labels compare nothing";

describeDb('reliability diagram: error answers left out and said', (ctx) => {
  beforeAll(async () => {
    const { answerIds: [a0, a1] } = await seedRun(ctx.database, 'rel-e', 2);
    const [j] = await ctx.database.db.insert(judges).values({ slug: 'conf-e', provider: 'openai', model: 'gpt-4.1', config: {}, configHash: 'conf-e' }).returning({ id: judges.id });
    const item = (id: string, verdict: string, confidence: number) => ({ id, weight: 1, verdict, evidence: '', points: 0, confidence, confidenceSource: 'logprob' as const });
    const ok = { status: 'ok' as const, completeness: 0.5, correctness: 1, f1: 0.5, claims: [] };
    await ctx.database.db.insert(grades).values([
      { answerId: a0!, judgeId: j!.id, ...ok, items: [item('barn', 'correct', 0.9), item('cow-in-barn', 'missing', 0.8)] },
      { answerId: a1!, judgeId: j!.id, ...ok, items: [item('barn', 'correct', 0.3)] },
    ]);
    const human = (answerId: number, itemKey: string, annotator: string, label: string) => ({ answerId, itemKey, annotator, kind: 'human' as const, label });
    await ctx.database.db.insert(labels).values([
      human(a0!, 'barn', 'ann', 'correct'),
      human(a0!, 'barn', 'bob', 'correct'),
      human(a0!, 'cow-in-barn', 'ann', 'correct'),
      human(a0!, 'cow-in-barn', 'bob', 'missing'),
      human(a1!, 'barn', 'ann', 'missing'),
      human(a1!, 'barn', 'bob', 'missing'),
    ]);
    await ctx.database.execute(`update answers set status = 'error' where id = $1`, [a1]);
  });

  it('a1 is no point and not unlabelled; the notes count it', async () => {
    const r = await loadReliability(ctx.database, { run: 'rel-e', judge: 'conf-e' });
    expect(r.points.map((p) => [p.answer, p.item, p.confidence, p.agrees])).toEqual([['a0', 'barn', 0.9, true]]);
    expect(r.leftOut).toEqual({ noConfidence: 0, noHumanLabel: 0, humanTie: 1, humanNotAVerdict: 0, examples: 0 });
    expect(r.diagram.n).toBe(1);
    expect(r.diagram.ece).toBeCloseTo(0.1, 12);
    // Unversioned rows are kept unchecked (label-versions.ts): a0's 4 labels and 2 graded items, none of a1's.
    expect(r.notes).toEqual([
      "6 item label(s) of unknown rubric version kept unchecked (imported without rubric_version, or older than the rubric's versions; grades without a version count here too)",
      NOTE,
    ]);
  });
});
