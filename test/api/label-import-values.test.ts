import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { allCounts, lines, NDJSON } from './write-readback-fixture.ts';

/**
 * For test/api/ (it imports ../helpers and ./app-fixture). POST /api/labels and `assay import labels`
 * (import-labels.ts storeLabelFile) stored the row's label text as given: a verdict 'corect', 'maybe' at
 * answer:binary, 'lots' at answer:numeric, 'yes' at claim:0, 'meh' for the whole answer, and a label of an
 * assemble answer were each stored with 200 {inserted: 1}, while POST /api/annotations refuses every one of
 * them (label-values.ts storedLabelValue / refuseUndescribed: "a label no scale reads would be stored with
 * a 200 and then set aside by every report"). Calibration then sets 'corect' aside: h's label of d1/barn
 * is not counted (pairs "h ~ h2": no units labelled by both) though the import said inserted 1.
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;
const truth = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

describeDb('label import: a label no scale reads', (ctx) => {
  const api = useApi(ctx);
  const post = (body: string) => api.call(api.keys.write, 'POST', '/api/labels', { body, headers: { 'content-type': NDJSON } });
  beforeAll(async () => {
    expect((await api.call(api.keys.admin, 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    expect((await api.call(api.keys.admin, 'POST', '/api/puzzles', { body: lines({ id: 'p4', ...truth, rubric: 'farmyard-54' }), headers: { 'content-type': NDJSON } })).status).toBe(200);
    const rows = [
      { id: 'd1', run: 'r', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A barn. Pigs.' },
      { id: 'a1', run: 'r', model: 'm', task: 'assemble', puzzle: 'p4', text: JSON.stringify(truth.layout) },
    ];
    expect((await api.call(api.keys.admin, 'POST', '/api/answers', { body: lines(...rows), headers: { 'content-type': NDJSON } })).status).toBe(200);
  });

  it('is refused (400) with nothing written, as POST /api/annotations refuses it', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['verdict typo', { answer: 'd1', run: 'r', item: 'barn', rater: 'h', label: 'corect' }, /item 'barn': label must be one of .*got 'corect'/],
      ['binary', { answer: 'd1', run: 'r', item: 'answer:binary', rater: 'h', label: 'maybe' }, /answer:binary: "maybe" is not/],
      ['numeric', { answer: 'd1', run: 'r', item: 'answer:numeric', rater: 'h', label: 'lots' }, /answer:numeric: "lots" is not/],
      ['claim', { answer: 'd1', run: 'r', item: 'claim:0', rater: 'h', label: 'yes' }, /claim 0: label must be one of true\|false\|unverifiable, got 'yes'/],
      ['whole answer', { answer: 'd1', run: 'r', rater: 'h', label: 'meh' }, /whole-answer label: "meh" is neither/],
      ['an assemble answer', { answer: 'a1', run: 'r', item: 'barn', rater: 'h', label: 'correct' }, /answer 'a1' of run 'r' is of task 'assemble', which has no description to label/],
    ];
    for (const [what, row, says] of cases) {
      const before = await allCounts(ctx.database);
      // A good row first: the file is refused as a whole.
      const res = await post(lines({ answer: 'd1', run: 'r', item: 'barn', rater: 'h0', label: 'correct' }, row));
      const body = (await res.json()) as { error?: { code: string; message: string } };
      expect([what, res.status, body.error?.code]).toEqual([what, 400, 'bad_input']);
      expect(body.error!.message, what).toMatch(/^body:2: /);
      expect(body.error!.message, what).toMatch(says);
      expect(await allCounts(ctx.database), what).toEqual(before);
    }
  });

  it('a label of its scale in any form the annotation path reads is stored (inserted 5)', async () => {
    const rows = [
      { answer: 'd1', run: 'r', item: 'barn', rater: 'ok', label: 'Correct' },
      { answer: 'd1', run: 'r', item: 'answer:binary', rater: 'ok', label: 'pass' },
      { answer: 'd1', run: 'r', item: 'answer:numeric', rater: 'ok', label: '3' },
      { answer: 'd1', run: 'r', item: 'claim:1', rater: 'ok', label: 'TRUE' },
      { answer: 'd1', run: 'r', rater: 'ok', label: 'fail' },
    ];
    const res = await post(lines(...rows));
    expect([res.status, await res.json()]).toEqual([200, { inserted: 5, replaced: 0, unchanged: 0, runs: ['r'] }]);
    // Stored in the annotation path's form, which the workspace shows: 'Correct' as written opened unselected.
    const stored = await ctx.database.execute(`select item_key, label from labels where annotator = 'ok' order by item_key`);
    expect(stored.rows.map((x) => [x.item_key, x.label])).toEqual([
      ['', 'fail'],
      ['answer:binary', 'true'],
      ['answer:numeric', '3'],
      ['barn', 'correct'],
      ['claim:1', 'true'],
    ]);
    // The same file again is the same labels (nothing to replace), as is a label stored as written before.
    await ctx.database.execute(`update labels set label = 'Correct' where annotator = 'ok' and item_key = 'barn'`);
    const again = await post(lines(...rows));
    expect([again.status, await again.json()]).toEqual([200, { inserted: 0, replaced: 0, unchanged: 5, runs: ['r'] }]);
  });
});
