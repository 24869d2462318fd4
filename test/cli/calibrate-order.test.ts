import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderSensitivity, type ShuffledGrade } from '../../src/analysis/calibration/order-sensitivity.ts';
import { createApp } from '../../src/app.ts';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { pagePanelCalibration } from '../../src/services/web-calibration-panel.ts';
import { sampleItemOrder } from '../../src/scoring/panel/index.ts';
import { type FakeProvider, type RecordedCall, startFakeProvider } from '../fake-provider/server.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { farmyard } from '../judges/harness.ts';
import { seedMixedRun } from '../services/grading/mixed-run.ts';

/**
 * A shuffled panel end to end: `assay run --judge panel.yaml` grades a run through the real SDKs against
 * a fake whose members are order-sensitive on purpose — each marks correct exactly the first K items its
 * prompt lists (K = 1, 2, 3, 4 for the answers d1, d2, d3, dts1) and every other item missing. So a
 * sample's completeness is the weight of the first K items of its recorded order over the rubric's total
 * weight, and the expected order sensitivity is worked out here from the seeded orders alone.
 */

const ids = farmyard.items.map((i) => i.id);
const weight = new Map(farmyard.items.map((i) => [i.id, i.weight]));
const total = farmyard.items.reduce((n, i) => n + i.weight, 0);
const SEED = 5;
const ANSWERS: Array<[string, string, number]> = [
  ['d1', 'cow in the doorway', 1],
  ['d2', 'green tractor; hens', 2],
  ['d3', 'pigs in the mud', 3],
  ['dts1', 'A barn and a tractor.', 4],
];
/** The item ids in the order a call's prompt lists them. */
const promptOrder = (body: unknown) => [...JSON.stringify(body).matchAll(/- (\S+) \(weight /g)].map((m) => m[1]!);
const firstK = (call: RecordedCall) => {
  const body = JSON.stringify(call.body);
  const k = ANSWERS.find(([, text]) => body.includes(text))?.[2] ?? 0;
  const verdicts = Object.fromEntries(promptOrder(call.body).slice(0, k).map((id) => [id, 'correct' as const]));
  return { kind: 'verdict-set' as const, verdicts, claims: [{ text: 'c', verdict: 'true' as const }] };
};
/** Completeness of a sample shown `order` that marks its first k items correct (weights summed by hand). */
const completeness = (order: string[], k: number) => order.slice(0, k).reduce((n, id) => n + weight.get(id)!, 0) / total;

describe('assay calibrate --run R --judge PANEL: order sensitivity of a shuffled panel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-calib-order-'));
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fake = await startFakeProvider({ models: { 'gpt-4.1': firstK, 'claude-sonnet-5': firstK } });
    env = { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url, OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: fake.openaiBaseUrl, DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    for (const [id, provider, model] of [['o-gpt', 'openai', 'gpt-4.1'], ['o-claude', 'anthropic', 'claude-sonnet-5']]) {
      writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
    }
    writeFileSync(join(dir, 'o-shuffled.yaml'), `id: o-shuffled\nprovider: panel\nmembers: [o-gpt, o-claude]\nsamples: 2\nshuffle: true\nseed: ${SEED}\n`);
    writeFileSync(join(dir, 'o-fixed.yaml'), 'id: o-fixed\nprovider: panel\nmembers: [o-gpt, o-claude]\nsamples: 2\n');
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      await migrate(database);
      await seedMixedRun(database, 'order-run');
    } finally {
      await database.close();
    }
    for (const panel of ['o-shuffled', 'o-fixed']) {
      const r = await runCliAsync(['run', '--run', 'order-run', '--judge', join(dir, `${panel}.yaml`), '--json'], { env });
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      expect(r.json()).toMatchObject({ total: 4, done: 4, failed: 0 });
    }
    // Two annotators, so calibration has its human units (order sensitivity itself needs none).
    const labels = join(dir, 'labels.jsonl');
    writeFileSync(labels, ANSWERS.flatMap(([answer]) => ['ann-1', 'ann-2'].map((rater) => JSON.stringify({ answer, run: 'order-run', item: 'barn', rater, label: 'correct' }))).join('\n') + '\n');
    expect((await runCliAsync(['import', 'labels', labels], { env })).code).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('per member: the mean |Δ completeness| between its two shuffled samples, over answers, with the seeded interval', async () => {
    const r = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-shuffled', '--scale', 'verdict', '--seed', '7', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const o = r.json().orderSensitivity;
    expect(o).toMatchObject({ grades: 4, seed: 7, resamples: 2000, confidence: 0.95 });
    // What the stored reports must say, rebuilt from the seeded orders alone.
    const expected: ShuffledGrade[] = ANSWERS.map(([answer, , k]) => ({
      answer,
      members: ['o-gpt', 'o-claude'].flatMap((judge) => [1, 2].map((sample) => ({ judge, sample, status: 'ok', completeness: completeness(sampleItemOrder(ids, SEED, judge, sample), k) }))),
    }));
    for (const judge of ['o-gpt', 'o-claude']) {
      const row = o.members.find((m: { judge: string }) => m.judge === judge);
      const diffs = ANSWERS.map(([, , k]) => Math.abs(completeness(sampleItemOrder(ids, SEED, judge, 1), k) - completeness(sampleItemOrder(ids, SEED, judge, 2), k)));
      expect(row).toMatchObject({ answers: 4, pairs: 4 });
      expect(row.meanAbsDifference).toBeCloseTo(diffs.reduce((a, b) => a + b, 0) / 4, 12);
      // The orders differ, so the member's samples do too on some answer: the figure is not trivially 0.
      expect(Math.max(...diffs)).toBeGreaterThan(0);
    }
    const fromOrders = orderSensitivity(expected, { seed: 7 });
    expect(o.members.map((m: { judge: string }) => m.judge).sort()).toEqual(['o-claude', 'o-gpt']);
    for (const m of fromOrders.members) {
      const got = o.members.find((x: { judge: string }) => x.judge === m.judge);
      expect(got.ci[0]).toBeCloseTo(m.ci![0], 12);
      expect(got.ci[1]).toBeCloseTo(m.ci![1], 12);
    }
    // The same seed gives the same figures.
    const again = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-shuffled', '--scale', 'verdict', '--seed', '7', '--json'], { env });
    expect(again.json().orderSensitivity).toEqual(o);

    const text = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-shuffled', '--scale', 'verdict', '--seed', '7'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "\n\nPanel o-shuffled: order sensitivity (mean absolute difference of completeness between one member's shuffled samples of an answer, averaged over answers; 95% bootstrap interval over answers, seed 7; 4 shuffled grades)\nmember",
    );
    const gpt = o.members.find((m: { judge: string }) => m.judge === 'o-gpt');
    expect(text.stdout).toMatch(new RegExp(`\\no-gpt\\s+4\\s+4\\s+${gpt.meanAbsDifference.toFixed(3)}\\s+\\[${gpt.ci[0].toFixed(3)}, ${gpt.ci[1].toFixed(3)}\\]\\n`));

    // The calibration page's panel section shows the same figures (same service, same seed).
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      const section = await pagePanelCalibration(database, { panel: 'o-shuffled', run: 'order-run', seed: 7 });
      expect(section.orderSensitivity).toEqual(o);
      const app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} });
      const html = await (await app.request('http://127.0.0.1/calibration?panel=o-shuffled&run=order-run')).text();
      const table = /<table id="panel-order-sensitivity">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
      expect(table).toContain(`<td>o-gpt</td><td class="n">${gpt.meanAbsDifference.toFixed(3)} [`);
    } finally {
      await database.close();
    }
  }, 300_000);

  it('a changed panel configuration adds grades; the figure reads the newest grade of each answer', async () => {
    // Same panel id, another seed: new item orders, new grades beside the earlier ones.
    writeFileSync(join(dir, 'o-shuffled.yaml'), 'id: o-shuffled\nprovider: panel\nmembers: [o-gpt, o-claude]\nsamples: 2\nshuffle: true\nseed: 9\n');
    const run = await runCliAsync(['run', '--run', 'order-run', '--judge', join(dir, 'o-shuffled.yaml'), '--json'], { env });
    expect(run.code).toBe(0);
    const r = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-shuffled', '--scale', 'verdict', '--json'], { env });
    expect(r.code).toBe(0);
    const o = r.json().orderSensitivity;
    expect(o.grades).toBe(4);
    const figure = (seed: number, judge: string) =>
      ANSWERS.reduce((n, [, , k]) => n + Math.abs(completeness(sampleItemOrder(ids, seed, judge, 1), k) - completeness(sampleItemOrder(ids, seed, judge, 2), k)), 0) / 4;
    for (const judge of ['o-gpt', 'o-claude']) expect(o.members.find((m: { judge: string }) => m.judge === judge).meanAbsDifference).toBeCloseTo(figure(9, judge), 12);
    // The two seeds give different figures, so reading the older grades would have been caught.
    expect(['o-gpt', 'o-claude'].some((judge) => Math.abs(figure(9, judge) - figure(SEED, judge)) > 1e-9)).toBe(true);
  }, 300_000);

  it('null for a panel that does not shuffle and for a plain judge; the text has no order table', async () => {
    const fixed = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-fixed', '--scale', 'verdict', '--json'], { env });
    expect(fixed.code).toBe(0);
    expect(fixed.json().orderSensitivity).toBeNull();
    const member = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-gpt', '--scale', 'verdict', '--json'], { env });
    expect(member.code).toBe(0);
    expect(member.json().orderSensitivity).toBeNull();
    const text = await runCliAsync(['calibrate', '--run', 'order-run', '--judge', 'o-fixed', '--scale', 'verdict'], { env });
    expect(text.stdout).toContain('Panel o-fixed: item instability');
    expect(text.stdout).not.toContain('order sensitivity');
  }, 300_000);
});
