import { expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { exampleAnswers } from '../../src/services/grading/example-exclusion.ts';
import { describeDb } from '../helpers/db.ts';
import { seedAnchored, textOf } from './anchored-fixture.ts';

/**
 * A copy of an example is its text with whitespace at either end aside, as the prompt trims it: the
 * prompt trims with JavaScript's String.prototype.trim, which takes Unicode white space too (no-break
 * space, the ideographic space U+3000 that ends many CJK answers, the byte-order mark U+FEFF, line and
 * paragraph separators). Such a copy is shown to the judge as the very example text, so it is left out of
 * the anchored judge's figures like one with a trailing newline.
 */

describeDb('anchored judges: copies differing by Unicode white space at either end', (ctx) => {
  it('finds them as copies', async () => {
    await seedAnchored(ctx.database);
    // The judges row of an anchored judge that was shown e1 (as grading writes it: resolvedExamples by run and id).
    await ctx.database.execute(
      `insert into judges (slug, provider, model, config, config_hash) values ('uj', 'anthropic', 'm', $1::jsonb, 'uj-hash')`,
      [JSON.stringify({ id: 'uj', resolvedExamples: [{ answerId: 0, run: 'anch', answer: 'e1', rubric: 'farmyard-54', verdicts: [] }] })],
    );
    const base = textOf('e1');
    const rows = [
      { id: 'nbsp', text: `${base}\u00a0` },
      { id: 'ideographic', text: `\u3000${base}\u3000` },
      { id: 'bom', text: `\ufeff${base}` },
      { id: 'separator', text: `${base}\u2028` },
      { id: 'ascii', text: `  ${base}\n` },
      { id: 'other', text: `${base}.` },
    ];
    expect(rows.filter((r) => r.text.trim() === base).map((r) => r.id)).toEqual(['nbsp', 'ideographic', 'bom', 'separator', 'ascii']);
    await importAnswersJsonl(ctx.database, {
      path: 'ws.jsonl',
      content: rows.map((r) => JSON.stringify({ ...r, run: 'ws', model: 'M', task: 'describe', rubric: 'farmyard-54' })).join('\n'),
    });
    // And one copy per character JavaScript's trim drops (the whole set, computed, not listed).
    const trimmed = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter((c) => c.trim() === '');
    expect(trimmed.length).toBe(25);
    await importAnswersJsonl(ctx.database, {
      path: 'ws-all.jsonl',
      content: trimmed.map((c) => JSON.stringify({ id: `u${c.charCodeAt(0).toString(16)}`, text: `${c}${base}${c}`, run: 'ws-all', model: 'M', task: 'describe', rubric: 'farmyard-54' })).join('\n'),
    });
    const shown = await exampleAnswers(ctx.database, { key: 'externalId', run: 'ws', judges: ['uj'] });
    expect([...(shown.get('uj') ?? [])].sort()).toEqual(['ascii', 'bom', 'ideographic', 'nbsp', 'separator']);
    const all = await exampleAnswers(ctx.database, { key: 'externalId', run: 'ws-all', judges: ['uj'] });
    expect(all.get('uj')?.size).toBe(25);
  });
});
