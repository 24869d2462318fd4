import { describe, expect, it } from 'vitest';
import { scoreChoices } from '../../../src/scoring/choice/score.ts';

/**
 * A model named "__proto__" (or "constructor", "toString") is a model like any other: assigning it into a
 * plain {} set the object's prototype instead, so the model vanished from `models`, exit 0.
 */
describe('scoreChoices: any model name is kept', () => {
  it.each(['__proto__', 'constructor', 'toString'])('%s is scored and listed', (name) => {
    const s = scoreChoices([{ id: 'q1', answer: 'A' }], [
      { id: 'q1', model: name, response: 'A' },
      { id: 'q1', model: 'm', response: 'B' },
    ]);
    expect(Object.keys(s.models)).toEqual([name, 'm'].sort());
    expect(Object.hasOwn(s.models, name)).toBe(true);
    expect(s.models[name]).toMatchObject({ n: 1, accuracy: 1, correct: 1 });
    expect(JSON.parse(JSON.stringify(s)).models[name].accuracy).toBe(1);
  });
});
