import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * The dataset card's label table counts each label on its own scale: a claim mark (`claim:<n>`, a mark on
 * the answer's n-th sentence) is no rubric item verdict. Before, every key but the whole-answer ones was
 * counted as 'rubric item verdicts', so the fixture's claim mark made 4 item verdicts of 3 and the card
 * named no claim marks at all.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-card-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('run export dataset card', (ctx) => {
  const out = join(dir, Math.random().toString(36).slice(2));
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out, now: new Date('2026-12-01T00:00:00Z') });
  }, 60_000);

  it('counts item verdicts, claim marks and whole-answer labels apart, as labels.jsonl holds them', () => {
    const labels = readFileSync(join(out, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { item: string | null; annotator: string });
    const items = labels.filter((l) => l.item === 'a' || l.item === 'b');
    const claims = labels.filter((l) => l.item?.startsWith('claim:'));
    expect([items.length, claims.length]).toEqual([3, 1]);
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    const section = card.slice(card.indexOf('## Labels'), card.indexOf('## Licence'));
    const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| scale'));
    expect(rows).toEqual([
      '| rubric item verdicts — human | 3 | 2 |',
      '| binary (whole answer) — human | 1 | 1 |',
      '| numeric rating (whole answer) — human | 1 | 1 |',
      '| claim marks (sentences of the answer) — human | 1 | 1 |',
    ]);
    expect(section).toMatch(/claim marks `true`\/`false`\/`unverifiable`/);
  });
});
