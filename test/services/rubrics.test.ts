import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { grades, judges, answers, runs, rubricVersions } from '../../src/db/schema.ts';
import { getRubric, getRubricVersionById, importRubrics, listRubrics, rubricContentHash } from '../../src/services/rubrics.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { FIXTURES } from '../helpers/cli.ts';

const farmyard = readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8');
const small = (weight: number, extra = '') => `id: small\ntitle: Small\nreference: A cat.\nitems:\n  - { id: cat, text: A cat, weight: ${weight} }\n${extra}`;

describeDb('rubric import and versioning', (ctx) => {
  it('imports the farmyard rubric with its 17 items in file order', async () => {
    const r = await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: farmyard }]);
    expect(r).toMatchObject({ created: 1, versioned: 0, unchanged: 0 });
    const v = await getRubric(ctx.database, 'farmyard-54');
    expect(v.version).toBe(1);
    expect(v.items).toHaveLength(17);
    expect(v.items[0]).toEqual({ id: 'barn', text: 'A large red barn with white trim stands on the left, doors open.', weight: 2, tags: [] });
    expect(v.items.reduce((s, it) => s + it.weight, 0)).toBe(21.5);
    expect(v.truth).toEqual({ orientation: 'landscape', grid: { rows: 6, cols: 9 }, pieces: 54 });
  });

  it('re-importing identical content makes no new version (formatting and key order do not matter)', async () => {
    const json = JSON.stringify({ items: [{ weight: 1, text: 'A cat', id: 'cat' }], reference: 'A cat.', title: 'Small', id: 'small' });
    await importRubrics(ctx.database, [{ path: 'small.yaml', content: small(1) }]);
    const before = await rowCounts(ctx.database);
    const r = await importRubrics(ctx.database, [{ path: 'small.json', content: json }]);
    expect(r).toMatchObject({ created: 0, versioned: 0, unchanged: 1 });
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('an edit makes version 2 and grades keep pointing at version 1', async () => {
    const db = ctx.database.db;
    const v1 = await getRubric(ctx.database, 'small');
    const [run] = await db.insert(runs).values({ name: 'r-version', model: 'm' }).returning();
    const [ans] = await db.insert(answers).values({ runId: run!.id, externalId: 'x', task: 'describe', text: 'a cat' }).returning();
    const [judge] = await db.insert(judges).values({ slug: 'j', provider: 'lexical', model: 'lexical', config: {}, configHash: 'h-version' }).returning();
    await db.insert(grades).values({ answerId: ans!.id, judgeId: judge!.id, rubricVersionId: v1.rubricVersionId, status: 'ok', completeness: 1 });

    const r = await importRubrics(ctx.database, [{ path: 'small.yaml', content: small(2) }]);
    expect(r).toMatchObject({ created: 0, versioned: 1, unchanged: 0, rubrics: [{ slug: 'small', version: 2, outcome: 'versioned' }] });
    const latest = await getRubric(ctx.database, 'small');
    expect(latest.version).toBe(2);
    expect(latest.versions).toBe(2);
    expect(latest.items[0]!.weight).toBe(2);
    expect((await getRubric(ctx.database, 'small', 1)).items[0]!.weight).toBe(1);

    const [g] = await db.select().from(grades).where(eq(grades.answerId, ans!.id));
    expect(g!.rubricVersionId).toBe(v1.rubricVersionId);
    const graded = await getRubricVersionById(ctx.database, g!.rubricVersionId!);
    expect([graded.id, graded.version, graded.items[0]!.weight]).toEqual(['small', 1, 1]);
    const versions = await db.select().from(rubricVersions).where(eq(rubricVersions.rubricId, (await db.select().from(rubricVersions).where(eq(rubricVersions.id, v1.rubricVersionId)))[0]!.rubricId));
    expect(versions.map((v) => v.version).sort()).toEqual([1, 2]);
  });

  it('lists rubrics with their latest version and item count', async () => {
    const l = await listRubrics(ctx.database, { limit: 2, offset: 0 });
    expect(l.total).toBe(2);
    expect(l.rubrics.map((r) => [r.id, r.latestVersion, r.items])).toEqual([
      ['farmyard-54', 1, 17],
      ['small', 2, 1],
    ]);
    expect((await listRubrics(ctx.database, { limit: 1, offset: 1 })).rubrics.map((r) => r.id)).toEqual(['small']);
  });

  it('a bad field names file, line and field, and nothing is written (even from the good files)', async () => {
    const before = await rowCounts(ctx.database);
    const bad = 'id: bad\ntitle: Bad\nreference: R\nitems:\n  - { id: a, text: A, weight: 1 }\n  - { id: b, text: B, weight: -3 }\n';
    const good = small(1).replace('id: small', 'id: other');
    await expect(importRubrics(ctx.database, [{ path: 'good.yaml', content: good }, { path: 'bad.yaml', content: bad }])).rejects.toThrow(
      /^bad\.yaml:6: items\[1\]\.weight: /,
    );
    await expect(importRubrics(ctx.database, [{ path: 'b.yaml', content: 'id: b\ntitle: [unclosed\n' }])).rejects.toThrow(/^b\.yaml:\d+: not valid YAML/);
    await expect(importRubrics(ctx.database, [{ path: 'c.json', content: '{"id":"c","title":"C","reference":"R","items":[{"id":"a","text":"A","weight":"heavy"}]}' }])).rejects.toThrow(
      /^c\.json:1: items\[0\]\.weight: .*number/,
    );
    await expect(importRubrics(ctx.database, [{ path: 'f.yaml', content: small(1, 'colour: red\n') }])).rejects.toThrow('f.yaml:6: colour: unknown field');
    await expect(importRubrics(ctx.database, [{ path: 'g.yaml', content: small(1).replace('weight: 1 }', 'weight: 1, wieght: 2 }') }])).rejects.toThrow(
      'g.yaml:5: items[0].wieght: unknown field',
    );
    await expect(importRubrics(ctx.database, [{ path: 'd.yaml', content: small(1) }, { path: 'e.yaml', content: small(3) }])).rejects.toThrow(
      "e.yaml:1: id: rubric 'small' also defined at d.yaml:1",
    );
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('a JSONL file holds one rubric per line; errors name the line', async () => {
    const line = (id: string, weight: unknown) => JSON.stringify({ id, title: id, reference: 'R', items: [{ id: 'a', text: 'A', weight }] });
    const r = await importRubrics(ctx.database, [{ path: 'many.jsonl', content: [line('j1', 1), line('j2', 2)].join('\n') }]);
    expect(r).toMatchObject({ created: 2, rubrics: [{ slug: 'j1', version: 1 }, { slug: 'j2', version: 1 }] });
    const before = await rowCounts(ctx.database);
    await expect(importRubrics(ctx.database, [{ path: 'more.jsonl', content: [line('j3', 1), '', line('j4', 0)].join('\n') }])).rejects.toThrow(
      /^more\.jsonl:3: items\[0\]\.weight: /,
    );
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('unknown rubric or version is not_found', async () => {
    await expect(getRubric(ctx.database, 'nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(getRubric(ctx.database, 'small', 9)).rejects.toThrow("rubric 'small' has no version 9 (latest is 2)");
  });
});

it('content hash ignores key order and undefined fields', () => {
  const a = rubricContentHash({ id: 'x', title: 'T', reference: 'R', items: [{ id: 'a', text: 'A', weight: 1 }] });
  const b = rubricContentHash({ items: [{ weight: 1, text: 'A', id: 'a', tags: undefined }], reference: 'R', title: 'T', id: 'x', image: undefined });
  const c = rubricContentHash({ id: 'x', title: 'T', reference: 'R', items: [{ id: 'a', text: 'A', weight: 1.5 }] });
  expect(a).toBe(b);
  expect(a).not.toBe(c);
});
