import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { allCounts, lines, NDJSON, recorder } from './write-readback-fixture.ts';

/**
 * Mission H6 audit, part 1 (keys, rubrics, puzzles, answers, assemblies, labels, annotations): what a 2xx
 * reports is what the GET routes and the tables then hold, field by field; an unknown or misspelled field
 * is refused (4xx) with nothing written; a repeat is as documented (unchanged, created false).
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as { id: string; title: string; reference: string; image: string; truth: unknown; items: Array<Record<string, unknown>> };
const truth = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

describeDb('write read-back: catalog, answers, labels', (ctx) => {
  const api = useApi(ctx);
  const r = recorder(api);
  const admin = () => api.keys.admin;
  const refused = (what: string, status: number, key: string, method: string, path: string, body?: unknown, type?: string) => r.refused(ctx.database, what, status, key, method, path, body, type);

  it('keys: created as reported, listed, revoked once and for all', async () => {
    await refused('keys: misspelled field', 400, admin(), 'POST', '/api/keys', { scopes: ['read'], nmae: 'x' });
    const made = await r.send(admin(), 'POST', '/api/keys', { scopes: ['read', 'annotate'], name: 'rb-reader' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'rb-reader', scopes: ['read', 'annotate'], revokedAt: null });
    const listed = (await r.send(admin(), 'GET', '/api/keys')).body.items.find((k: { prefix: string }) => k.prefix === made.body.prefix);
    const { key: _key, ...info } = made.body;
    expect(listed).toEqual(info);
    expect((await api.call(made.body.key, 'GET', '/api/rubrics')).status).toBe(200);
    const gone = await r.send(admin(), 'DELETE', `/api/keys/${made.body.prefix}`);
    expect(gone.status).toBe(200);
    expect(typeof gone.body.revokedAt).toBe('string');
    expect((await api.call(made.body.key, 'GET', '/api/rubrics')).status).toBe(401);
    const again = await r.send(admin(), 'DELETE', `/api/keys/${made.body.prefix}`);
    expect(again.body.revokedAt).toBe(gone.body.revokedAt);
    await refused('keys: revoke an unknown prefix', 404, admin(), 'DELETE', '/api/keys/00000000');
  });

  it('rubrics: every field kept; same content unchanged; edited content a version', async () => {
    const doc = { ...rubric, source: 'assay fixtures', items: rubric.items.map((it, i) => (i === 0 ? { ...it, tags: ['building'] } : it)) };
    await refused('rubrics: unknown top-level field', 400, admin(), 'POST', '/api/rubrics', { ...doc, titel: 'x' });
    await refused('rubrics: unknown item field', 400, admin(), 'POST', '/api/rubrics', { ...doc, items: [{ id: 'a', text: 't', weight: 1, wieght: 2 }] });
    await refused('rubrics: unknown truth field', 400, admin(), 'POST', '/api/rubrics', { ...doc, truth: { pieces: 4, piece: 4 } });
    const made = await r.send(admin(), 'POST', '/api/rubrics', doc);
    expect(made.body).toEqual({ created: 1, versioned: 0, unchanged: 0, rubrics: [{ slug: 'farmyard-54', version: 1, outcome: 'created' }] });
    const got = (await r.send(admin(), 'GET', '/api/rubrics/farmyard-54')).body;
    expect({ id: got.id, title: got.title, reference: got.reference, image: got.image, truth: got.truth, source: got.source, version: got.version }).toEqual({
      id: doc.id, title: doc.title, reference: doc.reference, image: doc.image, truth: doc.truth, source: 'assay fixtures', version: 1,
    });
    expect(got.items).toEqual(doc.items.map((it) => ({ id: it.id, text: it.text, weight: it.weight, tags: it.tags ?? [] })));
    expect((await r.send(admin(), 'POST', '/api/rubrics', doc)).body).toMatchObject({ created: 0, versioned: 0, unchanged: 1 });
    const edited = { ...doc, items: [...doc.items, { id: 'extra', text: 'A scarecrow.', weight: 0.25 }] };
    expect((await r.send(admin(), 'POST', '/api/rubrics', edited)).body).toMatchObject({ versioned: 1, rubrics: [{ slug: 'farmyard-54', version: 2, outcome: 'versioned' }] });
    const v2 = (await r.send(admin(), 'GET', '/api/rubrics/farmyard-54')).body;
    expect([v2.version, v2.items.length, v2.items.at(-1)]).toEqual([2, doc.items.length + 1, { id: 'extra', text: 'A scarecrow.', weight: 0.25, tags: [] }]);
    expect((await r.send(admin(), 'GET', '/api/rubrics/farmyard-54?version=1')).body.items).toEqual(got.items);
  });

  it('puzzles: every field kept; repeat unchanged; unknown field refused', async () => {
    const edges = Object.fromEntries(truth.layout.flat().map((id) => [id, ['flat', 'tab', 'blank', 'flat']]));
    const line = { id: 'p4', ...truth, edges, picture: 'images/p4.png', sizeBucket: 'small', rubric: 'farmyard-54' };
    await refused('puzzles: misspelled field', 400, admin(), 'POST', '/api/puzzles', lines({ ...line, sizebucket: 'x' }), NDJSON);
    await refused('puzzles: unknown puzzle id in edges', 400, admin(), 'POST', '/api/puzzles', lines({ ...line, edges: { ...edges, ghost: ['flat', 'flat', 'flat', 'flat'] } }), NDJSON);
    expect((await r.send(admin(), 'POST', '/api/puzzles', lines(line, { id: 'p5', ...truth }), NDJSON)).body).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const got = (await r.send(admin(), 'GET', '/api/puzzles/p4')).body;
    expect(got).toMatchObject({ id: 'p4', rows: 4, cols: 4, pieces: 16, layout: truth.layout, edges, picture: 'images/p4.png', sizeBucket: 'small', rubric: 'farmyard-54' });
    expect((await r.send(admin(), 'GET', '/api/puzzles/p5')).body).toMatchObject({ layout: truth.layout, edges: null, picture: null, sizeBucket: '~16', rubric: null });
    expect((await r.send(admin(), 'POST', '/api/puzzles', lines(line), NDJSON)).body).toEqual({ created: 0, updated: 0, unchanged: 1 });
  });

  it('answers: every field of a line kept, counts are rows, repeat unchanged', async () => {
    const d1 = { id: 'd1', run: 'rb1', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.', usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 2 }, stop_reason: 'end_turn', meta: { k: [1, 'x'] } };
    const d2 = { id: 'd2', run: 'rb1', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'Pigs in mud.', input_tokens: 9, output_tokens: 3, status: 'truncated' };
    const a1 = { id: 'a1', run: 'rb1', model: 'm', task: 'assemble', puzzle: 'p4', text: JSON.stringify(truth.layout) };
    await refused('answers: misspelled field', 400, admin(), 'POST', '/api/answers?effort=high&tags=tagged', lines(d1, { ...d2, stop_resaon: 'x' }), NDJSON);
    await refused('answers: unknown query parameter', 400, admin(), 'POST', '/api/answers?efort=high', lines(d1), NDJSON);
    const before = await allCounts(ctx.database);
    const up = await r.send(admin(), 'POST', '/api/answers?effort=high&tags=tagged', lines(d1, d2, a1), NDJSON);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ runs: [{ name: 'rb1', model: 'm', created: true, imported: 3, unchanged: 0 }], imported: 3, unchanged: 0, scored: 1 });
    const after = await allCounts(ctx.database);
    expect([after.answers! - before.answers!, after.runs! - before.runs!, after.assembly_scores! - before.assembly_scores!]).toEqual([3, 1, 1]);
    const items = (await r.send(admin(), 'GET', '/api/answers?run=rb1')).body.items as Array<Record<string, unknown>>;
    expect(items.map((a) => a.id)).toEqual(up.body.answerIds);
    expect(items.map(({ id: _i, createdAt: _c, ...a }) => a)).toEqual([
      { externalId: 'd1', run: 'rb1', model: 'm', effort: 'high', runTags: ['tagged'], task: 'describe', puzzle: null, rubric: 'farmyard-54', text: 'A red barn.', status: 'ok', inputTokens: 5, outputTokens: 7, meta: { k: [1, 'x'], usage: d1.usage, stopReason: 'end_turn' } },
      { externalId: 'd2', run: 'rb1', model: 'm', effort: 'high', runTags: ['tagged'], task: 'describe', puzzle: null, rubric: 'farmyard-54', text: 'Pigs in mud.', status: 'truncated', inputTokens: 9, outputTokens: 3, meta: {} },
      { externalId: 'a1', run: 'rb1', model: 'm', effort: 'high', runTags: ['tagged'], task: 'assemble', puzzle: 'p4', rubric: 'farmyard-54', text: a1.text, status: 'ok', inputTokens: null, outputTokens: null, meta: {} },
    ]);
    expect((await r.send(admin(), 'GET', `/api/answers/${up.body.answerIds[0]}`)).body).toEqual({ ...items[0] });
    expect((await r.send(admin(), 'GET', `/api/assemblies/${up.body.answerIds[2]}`)).body).toMatchObject({ answerId: up.body.answerIds[2], status: 'valid', direct: 1, exactMatch: 1 });
    expect((await r.send(admin(), 'GET', '/api/assemblies?run=rb1')).body.items.map((s: Record<string, unknown>) => [s.answer, s.run, s.puzzle, s.direct])).toEqual([['a1', 'rb1', 'p4', 1]]);
    const again = await r.send(admin(), 'POST', '/api/answers?effort=high&tags=tagged', lines(d1, d2, a1), NDJSON);
    expect(again.body).toMatchObject({ runs: [{ name: 'rb1', created: false, imported: 0, unchanged: 3 }], imported: 0, unchanged: 3, scored: 0, answerIds: up.body.answerIds });
    expect(await allCounts(ctx.database)).toMatchObject({ answers: after.answers, assembly_scores: after.assembly_scores });
    await refused('answers: same id, other text', 400, admin(), 'POST', '/api/answers', lines({ ...d1, text: 'Other.' }), NDJSON);
  });

  it('assemblies: stored with its score; the same again is created false; another answer under its id refused', async () => {
    const body = { run: 'rb-asm', model: 'm2', puzzle: 'p4', id: 'q1', answer: truth.layout, given: [truth.layout[0]![0]], effort: 'low', tags: ['t'], inputTokens: 3, outputTokens: 4 };
    await refused('assemblies: misspelled field', 400, admin(), 'POST', '/api/assemblies', { ...body, giv: [] });
    const made = await r.send(admin(), 'POST', '/api/assemblies', body);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ created: true, status: 'valid', direct: 1, exactMatch: 1 });
    const { created: _c, ...score } = made.body;
    const stored = (await r.send(admin(), 'GET', `/api/assemblies/${made.body.answerId}`)).body;
    expect(stored).toEqual(score);
    expect((await r.send(admin(), 'GET', '/api/assemblies?run=rb-asm')).body.items).toEqual([{ ...score, answer: 'q1', run: 'rb-asm', model: 'm2', puzzle: 'p4', sizeBucket: 'small' }]);
    expect((await r.send(admin(), 'GET', `/api/answers/${made.body.answerId}`)).body).toMatchObject({
      externalId: 'q1', run: 'rb-asm', model: 'm2', effort: 'low', runTags: ['t'], task: 'assemble', puzzle: 'p4', text: JSON.stringify(truth.layout), inputTokens: 3, outputTokens: 4, meta: { given: ['14'] },
    });
    const before = await allCounts(ctx.database);
    const again = await r.send(admin(), 'POST', '/api/assemblies', body);
    expect([again.status, again.body.created, again.body.answerId]).toEqual([200, false, made.body.answerId]);
    expect(await allCounts(ctx.database)).toMatchObject({ answers: before.answers, assembly_scores: before.assembly_scores });
    const other = truth.layout.map((row) => [...row].reverse());
    const clash = await refused('assemblies: another answer under a stored id', 400, admin(), 'POST', '/api/assemblies', { ...body, answer: other });
    expect(clash.body.error.message).toBe("body:1: id: answer 'q1' of run 'rb-asm' already exists with different content (text)");
  });

  it('labels: rows as reported, unchanged on repeat, replaced only with ?replace=true', async () => {
    const rows = [
      { answer: 'd1', run: 'rb1', item: 'barn', rater: 'h1', kind: 'human', label: 'correct', rubric_version: 1 },
      { answer: 'd2', run: 'rb1', rater: 'lexical', kind: 'judge', label: true },
    ];
    await refused('labels: misspelled field', 400, admin(), 'POST', '/api/labels', lines(rows[0], { ...rows[1], lable: 'x' }), NDJSON);
    // ?run= is the run of the upload's answers: an answer_id of another run is refused as a row's "run" is (before: 200, labels on run rb1).
    const d1 = (await r.send(admin(), 'GET', '/api/answers?run=rb1')).body.items[0].id as number;
    const elsewhere = await refused('labels: answer_id of another run than ?run=', 400, admin(), 'POST', '/api/labels?run=rb-asm', lines({ answer_id: d1, item: 'barn', rater: 'h9', label: 'correct' }), NDJSON);
    expect(elsewhere.body.error.message).toBe(`body:1: answer_id: answer ${d1} is in run 'rb1', ?run= / --run says 'rb-asm'`);
    const before = await allCounts(ctx.database);
    const up = await r.send(admin(), 'POST', '/api/labels', lines(...rows), NDJSON);
    expect(up.body).toEqual({ inserted: 2, replaced: 0, unchanged: 0, runs: ['rb1'] });
    expect((await allCounts(ctx.database)).labels! - before.labels!).toBe(2);
    const listed = (await r.send(admin(), 'GET', '/api/labels?run=rb1')).body.items.map(({ createdAt: _c, answerId: _a, ...l }: Record<string, unknown>) => l);
    expect(listed).toEqual([
      { answer: 'd1', run: 'rb1', model: 'm', item: 'barn', annotator: 'h1', kind: 'human', label: 'correct', campaignId: null, rubricVersion: 1 },
      { answer: 'd2', run: 'rb1', model: 'm', item: null, annotator: 'lexical', kind: 'judge', label: 'true', campaignId: null, rubricVersion: null },
    ]);
    expect((await r.send(admin(), 'POST', '/api/labels', lines(...rows), NDJSON)).body).toEqual({ inserted: 0, replaced: 0, unchanged: 2, runs: ['rb1'] });
    const changed = [{ ...rows[0], label: 'partial' }];
    await refused('labels: change without replace', 409, admin(), 'POST', '/api/labels', lines(...changed), NDJSON);
    expect((await r.send(admin(), 'POST', '/api/labels?replace=true', lines(...changed), NDJSON)).body).toEqual({ inserted: 0, replaced: 1, unchanged: 0, runs: ['rb1'] });
    expect((await r.send(admin(), 'GET', '/api/labels?run=rb1&annotator=h1')).body.items.map((l: { label: string }) => l.label)).toEqual(['partial']);
  });

  it("annotations: saved as the key's annotator, a second save replaces it", async () => {
    const ann = api.keys.annotate;
    const d1 = (await r.send(admin(), 'GET', '/api/answers?run=rb1')).body.items[0].id as number;
    await refused('annotations: misspelled field', 400, ann, 'POST', '/api/annotations', { answerId: d1, item: 'barn', label: 'correct', itme: 'x' });
    await refused('annotations: another annotator', 403, ann, 'POST', '/api/annotations', { answerId: d1, item: 'barn', label: 'correct', annotator: 'someone' });
    expect((await r.send(ann, 'POST', '/api/annotations', { answerId: d1, item: 'barn', label: 'correct' })).body).toEqual({ created: true, unchanged: false });
    expect((await r.send(ann, 'POST', '/api/annotations', { answerId: d1, label: 'pass' })).body).toEqual({ created: true, unchanged: false });
    const before = await allCounts(ctx.database);
    expect((await r.send(ann, 'POST', '/api/annotations', { answerId: d1, item: 'barn', label: 'missing' })).body).toEqual({ created: false, unchanged: false });
    expect((await r.send(ann, 'POST', '/api/annotations', { answerId: d1, item: 'barn', label: 'missing' })).body).toEqual({ created: false, unchanged: true });
    expect((await allCounts(ctx.database)).labels).toBe(before.labels);
    const mine = (await r.send(admin(), 'GET', '/api/labels?annotator=test%20annotate')).body.items.map((l: Record<string, unknown>) => [l.answerId, l.item, l.label, l.kind, l.rubricVersion]);
    expect(mine.sort((a: unknown[], b: unknown[]) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      [d1, 'barn', 'missing', 'human', 2],
      [d1, null, 'pass', 'human', 2],
    ]);
  });

  it('sent every write route given to this file', () => {
    expect(r.missing('catalog')).toEqual([]);
  });
});
