import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl, listAnswers } from '../../src/services/answers.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * Answer imports never report "unchanged" while the file says something else, and never pick one of two
 * values a row gives for the same thing: such a row is bad input naming its line and field, nothing written.
 */

const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const base = { run: 'r', model: 'm', task: 'describe', rubric: 'farmyard-54' };

describeDb('answer import: re-imports and contradictions', (ctx) => {
  const refused = async (content: string, message: string) => {
    const before = await rowCounts(ctx.database);
    const run = importAnswersJsonl(ctx.database, { path: 'f.jsonl', content });
    await expect(run).rejects.toMatchObject({ code: 'bad_input' });
    await expect(run).rejects.toThrow(message);
    expect(await rowCounts(ctx.database)).toEqual(before);
  };
  const stored = async (id: string) => {
    const a = (await listAnswers(ctx.database, { run: 'r' })).answers.find((x) => x.externalId === id)!;
    return [a.inputTokens, a.outputTokens, a.status];
  };

  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
    const first = jsonl(
      { ...base, id: 'a1', text: 'A red barn.', usage: { input_tokens: 10, output_tokens: 5 } },
      { ...base, id: 'a2', text: 'Pigs.', meta: { temperature: 0.7, seed: 1 } },
      { ...base, id: 'a3', text: 'Sky.', stop_reason: 'end_turn' },
    );
    expect(await importAnswersJsonl(ctx.database, { path: 'first.jsonl', content: first })).toMatchObject({ imported: 3, unchanged: 0 });
  });

  it('the same rows again (meta keys in another order) are unchanged', async () => {
    const again = jsonl(
      { ...base, id: 'a1', text: 'A red barn.', usage: { output_tokens: 5, input_tokens: 10 } },
      { ...base, id: 'a2', text: 'Pigs.', meta: { seed: 1, temperature: 0.7 } },
      { ...base, id: 'a3', text: 'Sky.', stop_reason: 'end_turn' },
    );
    expect(await importAnswersJsonl(ctx.database, { path: 'again.jsonl', content: again })).toMatchObject({ imported: 0, unchanged: 3 });
  });

  it('changed token counts are refused, not reported unchanged with the old counts kept', async () => {
    await refused(
      jsonl({ ...base, id: 'a1', text: 'A red barn.', usage: { input_tokens: 99, output_tokens: 5 } }),
      "f.jsonl:1: id: answer 'a1' of run 'r' already exists with different content (input_tokens: stored 10, this row 99)",
    );
    await refused(jsonl({ ...base, id: 'a1', text: 'A red barn.' }), "already exists with different content (input_tokens: stored 10, this row none)");
    expect(await stored('a1')).toEqual([10, 5, 'ok']);
  });

  it('changed meta or stop reason is refused, naming the field', async () => {
    await refused(jsonl({ ...base, id: 'a2', text: 'Pigs.', meta: { temperature: 0.2, seed: 1 } }), "answer 'a2' of run 'r' already exists with different content (meta)");
    await refused(jsonl({ ...base, id: 'a3', text: 'Sky.', stop_reason: 'refusal' }), "answer 'a3' of run 'r' already exists with different content (meta)");
  });

  it('two values for one thing in a row are refused, not one kept and the other dropped', async () => {
    const row = { ...base, id: 'n1', text: 'x' };
    await refused(jsonl({ ...row, usage: { input_tokens: 12 }, input_tokens: 50 }), 'f.jsonl:1: input_tokens: 50, but usage says 12');
    await refused(jsonl({ ...row, usage: { completion_tokens: 7 }, output_tokens: 8 }), 'f.jsonl:1: output_tokens: 8, but usage says 7');
    await refused(jsonl({ ...row, usage: { input_tokens: 3, prompt_tokens: 4 } }), 'f.jsonl:1: usage.prompt_tokens: 4, but usage.input_tokens says 3');
    await refused(jsonl({ ...row, stop_reason: 'end_turn', finish_reason: 'length' }), "f.jsonl:1: finish_reason: 'length', but stop_reason says 'end_turn'");
    await refused(jsonl({ ...row, stop_reason: 'end_turn', meta: { stopReason: 'max_tokens' } }), "f.jsonl:1: meta.stopReason: 'max_tokens', but stop_reason says 'end_turn'");
    await refused(jsonl({ ...row, usage: { input_tokens: 1 }, meta: { usage: { input_tokens: 2 } } }), 'f.jsonl:1: meta.usage: differs from usage');
    // The same value twice is no contradiction (an export restates its usage in meta).
    const same = jsonl({ ...row, usage: { input_tokens: 12 }, input_tokens: 12, stop_reason: 'end_turn', finish_reason: 'end_turn', meta: { stopReason: 'end_turn', usage: { input_tokens: 12 } } });
    expect(await importAnswersJsonl(ctx.database, { path: 'same.jsonl', content: same })).toMatchObject({ imported: 1 });
    expect(await stored('n1')).toEqual([12, null, 'ok']);
  });

  it('ids and names with spaces around them are refused: " a1" would be a second answer beside "a1"', async () => {
    await refused(jsonl({ ...base, id: ' a1', text: 'A red barn.' }), "f.jsonl:1: id: has spaces at the start or end (' a1')");
    await refused(jsonl({ ...base, id: 'a9', run: 'r ', text: 'x' }), "f.jsonl:1: run: has spaces at the start or end ('r ')");
    await refused(jsonl({ ...base, id: 'a9', run: 'r2', model: '\tm', text: 'x' }), 'f.jsonl:1: model: has spaces at the start or end');
    await refused(jsonl({ ...base, id: 'a9', run: 'r3', tags: ['ok', 'tagged '], text: 'x' }), 'f.jsonl:1: tags[1]: has spaces at the start or end');
    expect((await listAnswers(ctx.database, { run: 'r' })).answers.map((a) => a.externalId).sort()).toEqual(['a1', 'a2', 'a3', 'n1']);
  });

  it('a field given twice on one line is refused, not the last one taken (JSON.parse keeps the last)', async () => {
    const line = '{"id":"d1","run":"r","model":"m","task":"describe","rubric":"farmyard-54","text":"first","text":"second"}\n';
    await refused(line, 'f.jsonl:1: text: given twice on this line');
    const nested = '{"id":"d1","run":"r","model":"m","task":"describe","rubric":"farmyard-54","text":"t","meta":{"a":[{"k":1},{"k":2,"k":3}]}}\n';
    await refused(jsonl({ ...base, id: 'ok', text: 't' }) + nested, 'f.jsonl:2: meta.a[1].k: given twice on this line');
    // Equal keys in different objects, and key-like text inside strings, are no duplicate.
    const fine = '{"id":"d2","run":"r","model":"m","task":"describe","rubric":"farmyard-54","text":"\\"text\\": again, {\\"id\\":1}","meta":{"id":1,"x":{"id":2},"l":[{"id":3},{"id":4}]}}\n';
    expect(await importAnswersJsonl(ctx.database, { path: 'fine.jsonl', content: fine })).toMatchObject({ imported: 1 });
    expect((await listAnswers(ctx.database, { run: 'r' })).answers.find((a) => a.externalId === 'd2')!.text).toBe('"text": again, {"id":1}');
  });
});
