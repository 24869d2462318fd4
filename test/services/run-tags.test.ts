import { expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/import-answers.ts';
import { runTags } from '../../src/services/runs.ts';
import { describeDb } from '../helpers/db.ts';

/** runTags: the condition tags some run carries (the benchmarks page answers 404 for any other ?tag=). */
describeDb('run tags', (ctx) => {
  it('lists each tag once, sorted, and nothing without runs', async () => {
    expect(await runTags(ctx.database)).toEqual([]);
    const rows = [
      { id: 'a', run: 'r-plain', model: 'm', task: 'choice', text: 'x' },
      { id: 'b', run: 'r-tagged', model: 'm', task: 'choice', text: 'x', tags: ['tagged', 'cropped'] },
      { id: 'c', run: 'r-cropped', model: 'm', task: 'choice', text: 'x', tags: ['cropped'] },
    ];
    await importAnswersJsonl(ctx.database, { path: 'tags.jsonl', content: rows.map((r) => JSON.stringify(r)).join('\n') });
    expect(await runTags(ctx.database)).toEqual(['cropped', 'tagged']);
  });
});
