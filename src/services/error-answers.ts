/**
 * Answers stored with status error (the model call failed) compare nothing: there is no answer, so a grade
 * of one (stored before grading skipped them, or imported) is no judge's verdict of a model's answer, and a
 * person's label of its leftover text is no label of one. The readers that compare grades with labels
 * (judge compare, calibration) leave both out through report-facts.ts notOfErrorAnswer and say how many
 * answers that was with this note.
 */
export function errorAnswersNote(n: number): string[] {
  if (n === 0) return [];
  const [answers, its] = n === 1 ? ['answer', 'its'] : ['answers', 'their'];
  return [
    `${n} ${answers} stored with status error (the model call failed) left out: there is no answer, so ${its} grades (stored before grading skipped such answers, or imported) and people's labels compare nothing`,
  ];
}

