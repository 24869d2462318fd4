import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAnswers } from '../../src/services/answers.ts';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * Inspect answer ids are the sample id in a log with one epoch and `id#epoch` in a log with several. Before,
 * a run's one-epoch log and its later two-epoch log stored sample farm-1 epoch 1 twice (farm-1 and
 * farm-1#1), exit 0. Now the id shape follows the epochs the eval declares, and a sample the run already
 * holds under the other shape is refused, naming both ids.
 */

const FIXTURE = JSON.parse(readFileSync('test/fixtures/import-formats/inspect-log.json', 'utf8')) as {
  eval: Record<string, unknown>;
  samples: Array<Record<string, unknown>>;
};

/** The fixture's log with its eval declaring `epochs` and the first sample at each of `sampleEpochs`. */
function log(name: string, epochs: number | null, sampleEpochs: number[]) {
  const value = structuredClone(FIXTURE);
  value.eval.config = epochs === null ? {} : { epochs };
  value.samples = sampleEpochs.map((epoch) => ({ ...structuredClone(FIXTURE.samples[0]!), epoch }));
  return { path: name, content: JSON.stringify(value) };
}

describe('Inspect answer ids', () => {
  const ids = (f: ReturnType<typeof log>) => CONVERTERS.inspect(f, { rubric: 'farmyard-54' }).rows.map((r) => r.row.id);
  it('are the sample id with one epoch and id#epoch with several, declared or seen', () => {
    expect(ids(log('a.json', 1, [1]))).toEqual(['farm-1']);
    expect(ids(log('a.json', null, [1]))).toEqual(['farm-1']);
    expect(ids(log('b.json', 2, [1, 2]))).toEqual(['farm-1#1', 'farm-1#2']);
    expect(ids(log('b.json', null, [1, 2]))).toEqual(['farm-1#1', 'farm-1#2']);
    // A two-epoch eval whose log holds only epoch 1 (cut short) names it as the complete log does (before: 'farm-1').
    expect(ids(log('c.json', 2, [1]))).toEqual(['farm-1#1']);
  });
});

describeDb('Inspect logs of one run with different epochs', (ctx) => {
  const opts = { task: 'describe' as const, rubric: 'farmyard-54' };
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync('test/fixtures/farmyard.rubric.yaml', 'utf8') }]);
  });
  const stored = async (run: string) => (await listAnswers(ctx.database, { run })).answers.map((a) => a.externalId).sort();
  const refused = async (file: ReturnType<typeof log>, run: string, message: string) => {
    const before = await rowCounts(ctx.database);
    const r = importForeignAnswers(ctx.database, file, 'inspect', { ...opts, run });
    await expect(r).rejects.toMatchObject({ code: 'bad_input' });
    await expect(r).rejects.toThrow(message);
    expect(await rowCounts(ctx.database)).toEqual(before);
  };

  it('one epoch, then two: the second log is refused naming the sample and both ids; nothing is written', async () => {
    expect(await importForeignAnswers(ctx.database, log('one.json', 1, [1]), 'inspect', { ...opts, run: 'r1' })).toMatchObject({ imported: 1 });
    await refused(
      log('two.json', 2, [1, 2]),
      'r1',
      "two.json: samples[0]: id: sample 'farm-1' epoch 1 is already answer 'farm-1' of run 'r1', and this log names it 'farm-1#1' (a log with one epoch names answers by sample id, one with several by id#epoch); import it into another run (--run) rather than store the sample twice",
    );
    expect(await stored('r1')).toEqual(['farm-1']);
  });

  it('two epochs, then one: refused the same way', async () => {
    expect(await importForeignAnswers(ctx.database, log('two.json', 2, [1, 2]), 'inspect', { ...opts, run: 'r2' })).toMatchObject({ imported: 2 });
    await refused(log('one.json', 1, [1]), 'r2', "sample 'farm-1' epoch 1 is already answer 'farm-1#1' of run 'r2', and this log names it 'farm-1'");
    expect(await stored('r2')).toEqual(['farm-1#1', 'farm-1#2']);
  });

  it('a cut-short log and the complete one of the same eval share ids: unchanged plus the new epoch', async () => {
    expect(await importForeignAnswers(ctx.database, log('part.json', 2, [1]), 'inspect', { ...opts, run: 'r3' })).toMatchObject({ imported: 1 });
    expect(await importForeignAnswers(ctx.database, log('full.json', 2, [1, 2]), 'inspect', { ...opts, run: 'r3' })).toMatchObject({ imported: 1, unchanged: 1 });
    expect(await stored('r3')).toEqual(['farm-1#1', 'farm-1#2']);
  });

  it('the same sample in another run, or of another task, is no duplicate', async () => {
    expect(await importForeignAnswers(ctx.database, log('two.json', 2, [1, 2]), 'inspect', { ...opts, run: 'r1-epochs' })).toMatchObject({ imported: 2 });
    const other = JSON.parse(log('t.json', 2, [1]).content);
    other.eval.task = 'jigsaw_describe_v2';
    expect(await importForeignAnswers(ctx.database, { path: 't.json', content: JSON.stringify(other) }, 'inspect', { ...opts, run: 'r1' })).toMatchObject({ imported: 1 });
    expect(await stored('r1')).toEqual(['farm-1', 'farm-1#1']);
  });
});
