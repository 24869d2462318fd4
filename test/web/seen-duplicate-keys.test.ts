import { describe, expect, it } from 'vitest';
import { withSeen } from '../../src/web/pages/annotate.tsx';

/**
 * The no-script annotation form's `_seen` (the labels the form was rendered with) is JSON: with a key
 * given twice JSON.parse kept the last, so the conditional save compared against a label the client
 * did not mean (the first) and could write over a label changed since. Refused, nothing saved.
 */
describe('withSeen', () => {
  const marks = [{ item: 'barn', label: 'correct' as const }];
  it('reads the label each mark was shown with', () => {
    expect(withSeen(marks, { _seen: '{"item:barn":"missing","item:pond":"correct"}' })).toEqual([{ item: 'barn', label: 'correct', prev: 'missing' }]);
  });

  it('a field given twice in _seen is bad input', () => {
    expect(() => withSeen(marks, { _seen: '{"item:barn":"missing","item:barn":"correct"}' })).toThrow('_seen: item:barn: key given twice (JSON keeps only one of the values; give it once)');
  });
});
