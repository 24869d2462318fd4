import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { useApi } from '../../api/app-fixture.ts';
import { runCliAsync } from '../../helpers/cli.ts';
import { describeDb, rowCounts } from '../../helpers/db.ts';

// Each CLI case spawns the real binary; a loaded machine needs more than the default timeout.
vi.setConfig({ testTimeout: 180_000 });

/**
 * One grid answer, four ways in: `assay score grid --answer` (a file), `--answers` (a JSON Lines batch),
 * POST /api/assemblies (the run-creating general path, then the one-statement fast path, then the
 * idempotent re-submission) and POST /api/answers (an import) — every surface must give the same document,
 * and the stored one read back (GET /api/assemblies/{id}) too.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-grid-surfaces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tab = (): [string, string] => ['tab', 'blank'];
function jigsaw(rows: number, cols: number, prefix: string) {
  const n = rows * cols;
  const ids = Array.from({ length: n }, (_, k) => `${prefix}${(k * 7) % n}`);
  const side = ids.map(() => ['flat', 'flat', 'flat', 'flat']);
  for (let k = 0; k < n; k++) {
    if (k % cols < cols - 1) [side[k]![1], side[k + 1]![3]] = k % 3 ? tab() : [tab()[1], tab()[0]];
    if (k + cols < n) [side[k]![2], side[k + cols]![0]] = k % 2 ? tab() : [tab()[1], tab()[0]];
  }
  const layout = Array.from({ length: rows }, (_, r) => ids.slice(r * cols, (r + 1) * cols));
  return { rows, cols, layout, edges: Object.fromEntries(ids.map((id, k) => [id, side[k]!])) };
}

interface Case {
  answer: string | unknown[] | Record<string, unknown>;
  given?: string[];
}

const t34 = jigsaw(3, 4, 'p');
const ids = t34.layout.flat();
const rowsOf = (xs: (string | null)[], cols: number) => Array.from({ length: xs.length / cols }, (_, r) => xs.slice(r * cols, (r + 1) * cols));
const swapped = [...ids];
[swapped[0], swapped[5]] = [swapped[5]!, swapped[0]!];
const cases34: Case[] = [
  { answer: rowsOf(ids, 4) },
  { answer: rowsOf(swapped, 4).map((r) => r.join(' ')).join('\n') },
  { answer: `Thinking...\n\n| ${rowsOf(swapped, 4).map((r) => r.join(' | ')).join(' |\n| ')} |\n` },
  { answer: rowsOf([ids[1]!, ids[1]!, 'nope', null, ...ids.slice(4, 11), ids[0]!], 4) },
  { answer: Object.fromEntries(ids.map((id, k) => [id, [k % 3, Math.floor(k / 3)]])) },
  { answer: { [ids[0]!]: [0, 0], [ids[1]!]: [0, 0], [ids[2]!]: [9, 9], zz: [1, 1], [ids[3]!]: [0, 3] } },
  { answer: rowsOf(ids.slice(0, 8), 4) },
  { answer: 'no grid here' },
  { answer: [...rowsOf(ids, 4)].reverse(), given: [ids[0]!, ids[11]!] },
  { answer: rowsOf(swapped, 4).map((r) => r.join(',')).join('\n'), given: [ids[3]!] },
];


/** The CLI's documents for a truth's cases: the single form per answer, then the batch's lines. */
const cli: Record<string, Promise<{ single: Array<Record<string, any>>; batchLines: Array<Record<string, any>> }>> = {};
async function runCliForms(tag: string, truthPath: string, list: readonly Case[], name: string) {
  const single = await Promise.all(
    list.map(async (c, i) => {
      const isText = typeof c.answer === 'string';
      const answerPath = join(dir, `${tag}.a${i}.${isText ? 'txt' : 'json'}`);
      writeFileSync(answerPath, isText ? (c.answer as string) : JSON.stringify(c.answer));
      const args = ['score', 'grid', '--truth', truthPath, '--answer', answerPath, '--json'];
      if (c.given) {
        const g = join(dir, `${tag}.g${i}.json`);
        writeFileSync(g, JSON.stringify(c.given));
        args.push('--given', g);
      }
      const r = await runCliAsync(args);
      expect(r.code, `${name} #${i}: ${r.stderr}`).toBe(0);
      return r.json();
    }),
  );

  // CLI batch
  const batchPath = join(dir, `${tag}.jsonl`);
  writeFileSync(batchPath, list.map((c, i) => JSON.stringify({ id: `a${i}`, answer: c.answer, ...(c.given ? { given: c.given } : {}) })).join('\n') + '\n');
  const batch = await runCliAsync(['score', 'grid', '--truth', truthPath, '--answers', batchPath]);
  expect(batch.code, batch.stderr).toBe(0);
  const batchLines = batch.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
  return { single, batchLines };
}

describeDb('grid scores agree across the CLI, its batch form and the API', (ctx) => {
  const api = useApi(ctx);

  it.each([
    ['3×4 with edges', t34, cases34],
    ['1×1', { rows: 1, cols: 1, layout: [['solo']] }, [{ answer: 'solo' }, { answer: [['solo']] }, { answer: 'x' }]],
    ['4×1', jigsaw(4, 1, 'v'), [{ answer: 'v0\nv3\nv2\nv1' }, { answer: { v0: [0, 0], v1: [1, 0], v3: [3, 0] } }, { answer: [['v0'], ['v1'], ['v2'], ['v3']], given: ['v2'] }]],
    ['1×5', jigsaw(1, 5, 'h'), [{ answer: 'h0 h2 h4 h1 h3' }, { answer: [['h0', 'h1', 'h2', 'h3', 'h3']] }]],
  ] as const)('%s', async (name, truth, cases) => {
    const slug = `g-${name.replace(/\W+/g, '')}`.toLowerCase();
    const tag = slug;
    const truthPath = join(dir, `${tag}.truth.json`);
    writeFileSync(truthPath, JSON.stringify(truth));
    const put = await api.call(api.keys.write, 'POST', '/api/puzzles', { body: JSON.stringify({ id: slug, ...truth }) + '\n', headers: { 'content-type': 'application/x-ndjson' } });
    expect(put.status, await put.clone().text()).toBe(200);
    const list = cases as readonly Case[];

    // CLI, one answer per process (a .json file for a JSON answer, as a user would save it); once for both engines
    const { single, batchLines } = await (cli[tag] ??= runCliForms(tag, truthPath, list, name));
    expect(batchLines).toHaveLength(list.length + 1);

    // API: the first submission creates the run (general path), the rest take the fast path
    const submitted: Array<Record<string, unknown>> = [];
    for (const [i, c] of list.entries()) {
      const body = { run: `${tag}-run`, model: 'm', puzzle: slug, id: `a${i}`, answer: c.answer, ...(c.given ? { given: c.given } : {}) };
      const r = await api.call(api.keys.write, 'POST', '/api/assemblies', { body });
      expect(r.status, `${name} #${i}: ${await r.clone().text()}`).toBe(201);
      submitted.push((await r.json()) as Record<string, unknown>);
    }
    // all at once into a second run: the group-commit batch
    const grouped = await Promise.all(
      list.map(async (c, i) => {
        const body = { run: `${tag}-run`, model: 'm', puzzle: slug, id: `b${i}`, answer: c.answer, ...(c.given ? { given: c.given } : {}) };
        const r = await api.call(api.keys.write, 'POST', '/api/assemblies', { body });
        expect(r.status).toBe(201);
        return (await r.json()) as Record<string, unknown>;
      }),
    );
    // the idempotent repeat (general path: the stored answer is re-scored)
    const repeated = await Promise.all(
      list.map(async (c, i) => {
        const body = { run: `${tag}-run`, model: 'm', puzzle: slug, id: `a${i}`, answer: c.answer, ...(c.given ? { given: c.given } : {}) };
        const r = await api.call(api.keys.write, 'POST', '/api/assemblies', { body });
        expect(r.status).toBe(200);
        return (await r.json()) as Record<string, unknown>;
      }),
    );
    // an import of the same answers as JSON Lines
    const jsonl = list
      .map((c, i) => JSON.stringify({ id: `a${i}`, task: 'assemble', puzzle: slug, text: typeof c.answer === 'string' ? c.answer : JSON.stringify(c.answer), ...(c.given ? { meta: { given: c.given } } : {}) }))
      .join('\n');
    const imp = await api.call(api.keys.write, 'POST', `/api/answers?run=${tag}-import&model=m`, { body: jsonl, headers: { 'content-type': 'application/x-ndjson' } });
    expect(imp.status, await imp.clone().text()).toBe(200);
    const importedIds = ((await imp.json()) as { answerIds: number[] }).answerIds;

    for (const [i, want] of single.entries()) {
      const label = `${name} #${i}`;
      const { id, ...fromBatch } = batchLines[i]!;
      expect(id).toBe(`a${i}`);
      expect(fromBatch, `${label} batch`).toEqual(want);
      const { answerId, created: _c, ...api1 } = submitted[i]!;
      expect(api1, `${label} api`).toEqual(want);
      const { answerId: gid, created: _g, ...api2 } = grouped[i]!;
      expect(api2, `${label} api grouped`).toEqual(want);
      const { answerId: rid, created: _r, ...api3 } = repeated[i]!;
      expect(rid).toBe(answerId);
      expect(api3, `${label} api repeated`).toEqual(want);
      for (const stored of [answerId, gid, importedIds[i]]) {
        const g = await api.call(api.keys.read, 'GET', `/api/assemblies/${stored}`);
        expect(g.status).toBe(200);
        const { answerId: _s, ...back } = (await g.json()) as Record<string, unknown>;
        expect(back, `${label} stored ${stored}`).toEqual(want);
      }
    }
    // the batch aggregate: each metric's mean over the answers where it is defined
    const agg = batchLines.at(-1)!.aggregate;
    const mean = (xs: Array<number | null>) => {
      const d = xs.filter((x): x is number => x !== null);
      return d.length ? d.reduce((a, b) => a + b, 0) / d.length : null;
    };
    expect(agg.n).toBe(list.length);
    for (const k of ['direct', 'exactMatch', 'neighbour', 'adjacency', 'proximity', 'shapeCompatibility'] as const) {
      const m = mean(single.map((s) => s[k]));
      if (m === null) expect(agg[k]).toBeNull();
      else expect(agg[k], k).toBeCloseTo(m, 12);
    }
  });

  it('clue ids that are unknown, repeated or every piece are refused (400, nothing written) on the new-run and the fast path', async () => {
    const slug = 'g-34withedges';
    const before = await rowCounts(ctx.database);
    const bad: Array<[unknown, RegExp]> = [
      [['nope'], /unknown piece id 'nope'/],
      [[ids[0], ids[0]], /listed twice/],
      [ids, /every piece is given/],
    ];
    for (const run of ['g-bad-new-run', `${slug}-run`]) {
      for (const [given, message] of bad) {
        const r = await api.call(api.keys.write, 'POST', '/api/assemblies', { body: { run, model: 'm', puzzle: slug, id: 'bad', answer: rowsOf(ids, 4), given } });
        expect(r.status, `${run} ${JSON.stringify(given)}`).toBe(400);
        expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(message);
      }
    }
    const imp = await api.call(api.keys.write, 'POST', '/api/answers?run=g-bad-import&model=m', {
      body: JSON.stringify({ id: 'x', task: 'assemble', puzzle: slug, text: 'p0', meta: { given: ['nope'] } }),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imp.status).toBe(400);
    expect(await rowCounts(ctx.database)).toEqual(before);
  });
});
