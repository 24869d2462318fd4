import { expect, it } from 'vitest';
import { lexicalRubricVerdicts } from '../../src/judges/adapters/lexical.ts';
import { listAnswers } from '../../src/services/answers.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { getRubric, toRubric } from '../../src/services/rubrics.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb } from '../helpers/db.ts';

/** Acceptance: the lexical judge grades every bundled example offline and deterministically. */
describeDb('lexical judge over the bundled examples', (ctx) => {
  it('grades every seeded description answer, and the stored verdicts are reproduced exactly', async () => {
    const seeded = await seedExamples(ctx.database);
    expect(seeded.seeded).toBe(true);
    const { answers } = await listAnswers(ctx.database, { limit: 1000 });
    const gradable = answers.filter((a) => (a.task === 'describe' || a.task === 'describe-then-solve') && a.rubric !== null && a.text && a.text.trim() !== '');
    expect(gradable.length).toBeGreaterThan(1);
    // Assemblies carry their puzzle's rubric too, yet the seed grades only the descriptions.
    expect(answers.some((a) => a.task === 'assemble' && a.rubric !== null)).toBe(true);
    expect(seeded.grades).toBe(gradable.length);
    const session = await createGradingSession(ctx.database, { judge: 'lexical' });
    for (const a of gradable) {
      const g = await session.grade({ answer: { id: a.id } });
      expect(g.status, `answer ${a.id}`).toBe('ok');
      expect(g.judge.baseline).toBe(true);
      expect(g.f1).not.toBeNull();
      const rubric = toRubric(await getRubric(ctx.database, a.rubric!));
      const again = lexicalRubricVerdicts(rubric, a.text!, { correct: 0.6, partial: 0.3 });
      expect(g.items.map((i) => [i.id, i.verdict])).toEqual(again.items.map((i) => [i.id, i.verdict]));
    }
  }, 240_000);
});
