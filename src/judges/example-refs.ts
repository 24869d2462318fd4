import { z } from 'zod';
import { CAPS, INT4_MAX } from '../domain/limits.ts';

/**
 * The `examples:` key of a judge file (docs/judges.md, "Anchored judges"): answers people labelled,
 * shown to the judge with the people's verdicts. The file only names them; the answers' texts and
 * labels are in the database, so they are resolved by the grading service
 * (src/services/grading/judge-examples.ts) and rendered into the prompt by example-prompt.ts.
 */

/** At most this many examples (after a labels file is expanded to its answers). */
export const MAX_JUDGE_EXAMPLES = 20;
/** The rendered examples block (answer texts, item texts, verdicts) is at most this many characters. */
export const MAX_EXAMPLE_CHARS = 50_000;

const AnswerKey = z.union([z.string().min(1).max(CAPS.name), z.number().int().min(0).max(INT4_MAX)]);

export const JudgeExampleRefSchema = z
  .object({
    answer: AnswerKey.optional().describe('a database answer id (a number), or with `run` the answer\'s id in that run'),
    run: z.string().min(1).max(CAPS.name).optional().describe('the run the answer (or the labels file\'s answers) belong to'),
    labels: z
      .string()
      .min(1)
      .max(CAPS.path)
      .optional()
      .describe('a label set (calibration/ format, JSONL or CSV), relative to the judge file: its human item labels, of answers in `run`'),
    answers: z.array(AnswerKey).min(1).max(MAX_JUDGE_EXAMPLES).optional().describe('with labels: only these answers of the file (ids in the run)'),
  })
  .strict()
  .superRefine((r, ctx) => {
    const issue = (message: string, path: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (r.answer === undefined && r.labels === undefined) issue('give an answer (a database answer id, or run + the answer\'s id in the run) or a labels file', 'answer');
    if (r.answer !== undefined && r.labels !== undefined) issue('give either answer or labels, not both', 'labels');
    if (r.labels !== undefined && r.run === undefined) issue('a labels file names answers by their id in a run: give run too', 'run');
    if (r.answers !== undefined && r.labels === undefined) issue('answers picks answers of a labels file: give labels too', 'answers');
    if (r.answer !== undefined && r.run === undefined && typeof r.answer !== 'number') {
      issue(`'${r.answer}' is an id in a run: give run too (or the database answer id, a number)`, 'answer');
    }
    if (r.answer !== undefined && r.run === undefined && typeof r.answer === 'number' && r.answer < 1) issue('a database answer id is at least 1', 'answer');
  });

export const JudgeExamplesSchema = z
  .array(JudgeExampleRefSchema)
  .min(1, 'list at least one example (or leave examples out)')
  .max(MAX_JUDGE_EXAMPLES, `a judge shows at most ${MAX_JUDGE_EXAMPLES} examples`)
  .describe('rubric judges only: answers with human labels, shown with the people\'s verdicts in the cached part of the prompt; left out of this judge\'s calibration');

export type JudgeExampleRef = z.infer<typeof JudgeExampleRefSchema>;
