import { expect, it } from 'vitest';
import { RubricSchema } from '../../src/domain/rubric.ts';
import { iiwAnswerRow, iiwRubric, IiwRowSchema, itemIds, salienceWeight } from '../../src/services/iiw.ts';

it('salience weight: box share and list place, rounded to halves, 1 to 4', () => {
  expect(salienceWeight([0, 0, 999, 999], 0)).toBe(4); // 1 + 2·1 + 1
  expect(salienceWeight([0, 0, 999, 999], 9)).toBe(3); // 1 + 2 + 0.1 = 3.1 → 3
  expect(salienceWeight([0, 0, 499.5, 499.5], 1)).toBe(2.5); // a = 1/4: 1 + 1 + 0.5
  expect(salienceWeight([10, 10, 12, 12], 14)).toBe(1); // a speck late in the list
  expect(salienceWeight([500, 500, 400, 400], 0)).toBe(2); // an inverted box has no area: 1 + 0 + 1
});

it('item ids: slugs of the labels, numbered on repeats', () => {
  expect(itemIds(['Brick wall', 'Sky', 'Brick wall', '!!!', 'Café sign'])).toEqual(['brick-wall', 'sky', 'brick-wall-2', 'object', 'cafe-sign']);
});

it('a row becomes a valid rubric and an answers row', () => {
  const row = IiwRowSchema.parse({
    'image/key': 'aar_1',
    IIW: 'A red door.',
    'IIW-P5B': 'A door.',
    objects: [{ label: 'Door', description: 'A red door.', normalized_coords: ['0', '0', '999', '999'] }],
    'iiw-human-sxs-iiw-p5b': { 'metrics/Hallucination': 'Neutral' },
  });
  const rubric = iiwRubric(row);
  expect(RubricSchema.parse(rubric)).toEqual(rubric);
  expect(rubric).toMatchObject({ id: 'iiw-aar_1', title: 'IIW aar_1: Door', reference: 'A red door.', items: [{ id: 'door', text: 'Door: A red door.', weight: 4 }] });
  expect(rubric.source).toContain('CC-BY-4.0');
  expect(iiwAnswerRow(row)).toMatchObject({ id: 'aar_1', run: 'IIW-P5B', task: 'describe', rubric: 'iiw-aar_1', text: 'A door.', meta: { humanSxsVsIiwHuman: { 'metrics/Hallucination': 'Neutral' } } });
  expect(iiwAnswerRow({ ...row, 'IIW-P5B': undefined })).toBeNull();
});
