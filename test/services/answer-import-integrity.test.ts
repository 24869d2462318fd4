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
});
