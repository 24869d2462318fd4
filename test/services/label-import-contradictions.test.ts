import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl, listAnswers } from '../../src/services/answers.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { listLabels } from '../../src/services/labels.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * A label row that says two things about where it goes or who gave it is bad input naming the line and
 * field: before, `answer_id` silently won over a contradicting `answer`/`run`/`model` (the label landed on
 * an answer the row did not name), `rater` over a different `annotator`, and a CSV cell " alice" made a
 * second rater beside "alice".
 */

const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

describeDb('label import: contradicting rows are refused', (ctx) => {
  let a0 = 0;
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
    for (const run of ['run-a', 'run-b']) {
      await importAnswersJsonl(ctx.database, {
        path: `${run}.jsonl`,
        content: jsonl(...['x0', 'x1'].map((id) => ({ id, run, model: `m-${run}`, task: 'describe', rubric: 'farmyard-54', text: `answer ${id}` }))),
      });
    }
    a0 = (await listAnswers(ctx.database, { run: 'run-a' })).answers.find((a) => a.externalId === 'x0')!.id;
  });

  const refused = async (path: string, content: string, message: string) => {
    const before = await rowCounts(ctx.database);
    const run = importLabels(ctx.database, { path, content });
    await expect(run).rejects.toMatchObject({ code: 'bad_input' });
    await expect(run).rejects.toThrow(message);
    expect(await rowCounts(ctx.database)).toEqual(before);
  };

  it('answer_id with an answer, run or model of another answer', async () => {
    await refused('l.jsonl', jsonl({ answer_id: a0, run: 'run-b', item: 'barn', rater: 'ann', label: 'correct' }), `l.jsonl:1: run: answer ${a0} is in run 'run-a', this row says 'run-b'`);
    await refused('l.jsonl', jsonl({ answer_id: a0, answer: 'x1', item: 'barn', rater: 'ann', label: 'correct' }), `l.jsonl:1: answer: answer ${a0} is 'x0' of run 'run-a', this row says 'x1'`);
    await refused('l.jsonl', jsonl({ answer_id: a0, model: 'm-run-b', item: 'barn', rater: 'ann', label: 'correct' }), `l.jsonl:1: model: answer ${a0} is of model 'm-run-a', this row says 'm-run-b'`);
    // Restating what is true is fine.
    const ok = jsonl({ answer_id: a0, answer: 'x0', run: 'run-a', model: 'm-run-a', item: 'barn', rater: 'ann', label: 'correct' });
    expect(await importLabels(ctx.database, { path: 'ok.jsonl', content: ok })).toEqual({ inserted: 1, replaced: 0, unchanged: 0, runs: ['run-a'] });
  });

  it('rater and annotator naming two people', async () => {
    await refused('l.jsonl', jsonl({ answer: 'x0', run: 'run-a', item: 'fence', rater: 'bob', annotator: 'carol', label: 'correct' }), "l.jsonl:1: annotator: 'carol' is not the rater 'bob' (give one of them)");
    expect(await importLabels(ctx.database, { path: 'ok.jsonl', content: jsonl({ answer: 'x0', run: 'run-a', item: 'fence', rater: 'bob', annotator: 'bob', label: 'correct' }) })).toMatchObject({ inserted: 1 });
  });

  it('a rater with spaces around it (a CSV written with ", ") is not a second rater', async () => {
    await refused('l.csv', 'answer,run,item,rater,label\nx0,run-a,pond, alice ,correct\n', "l.csv:2: rater: has spaces at the start or end (' alice ')");
    await refused('l.jsonl', jsonl({ answer: 'x0', run: 'run-a', item: 'pond', annotator: 'alice\t', label: 'correct' }), 'l.jsonl:1: annotator: has spaces at the start or end');
    const raters = (await listLabels(ctx.database, { run: 'run-a' })).labels.map((l) => l.annotator);
    expect([...new Set(raters)].sort()).toEqual(['ann', 'bob']);
  });

  it('a label line giving "label" twice is refused (JSON.parse would keep the second verdict)', async () => {
    await refused('l.jsonl', '{"answer":"x1","run":"run-a","item":"sky","rater":"ann","label":"correct","label":"incorrect"}\n', 'l.jsonl:1: label: given twice on this line');
  });
});
