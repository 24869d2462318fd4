import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { migrate, openDatabase } from '../../src/db/client.ts';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { createKey } from '../../src/services/keys.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';

/**
 * One calibration question, one answer: `assay calibrate --run R --judge J` and
 * GET /api/reports/calibration?run=R&judge=J over the same stored data give the same figures.
 * Run r, model A, answers d1, d2, d3 of the farmyard rubric; judge 'lex' graded all three, 'idle' exists
 * and graded nothing. People h1, h2, h3 labelled barn and farmer of d1 and d2 (d3 nobody labelled); h1
 * also gave d1 a whole-answer 'pass' (another scale than verdict).
 * Before: the CLI refused (exit 2) a judge with no grade where the API and the page answer the people's
 * figures with an empty judge side; the CLI counted d3's graded items, which no person saw, as units and
 * answers of the report (6 units over 3 answers against the API's 4 over 2); and it said nothing of the
 * label of another scale it set aside; and the API had no `humans` (the page's ?humans=, the CLI's --humans):
 * the published table (humans=majority|adjudicated) could not be asked of it.
 */
type Json = Record<string, any>;
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;

/** The figures both surfaces give, without the fields that name answers (the CLI by id in the run, the API by database id) or are one surface's own. */
function figures(r: Json): Json {
  const { judgeNotes: _n, setAside: _s, excludedExamples: _e, reliability: _r, orderSensitivity: _o, majority, judgeReports, ...rest } = r;
  return {
    ...rest,
    majority: { ...majority, tied: majority.tied.length },
    judgeReports: judgeReports.map((j: Json) => ({ ...j, answers: { ...j.answers, answers: j.answers.answers.length } })),
  };
}

describe('assay calibrate --run and GET /api/reports/calibration: the same question, the same answer', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-calib-surfaces-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
  const api: Record<string, { status: number; body: Json }> = {};
  const ask = [
    'scale=verdict&run=r&judge=lex&seed=1',
    'scale=verdict&run=r&judge=idle&seed=1',
    'scale=verdict&run=r&judge=claude&seed=1',
    'scale=verdict&run=r&judge=nobody&seed=1',
    'scale=verdict&run=r&judge=lex&seed=1&humans=majority',
    'scale=verdict&run=r&judge=lex&seed=1&humans=adjudicated',
  ];

  beforeAll(async () => {
    const db = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(db);
      await importParsedRubrics(db, [rubric]);
      const desc = (id: string) => JSON.stringify({ id, run: 'r', model: 'A', task: 'describe', rubric: 'farmyard-54', text: `A farmyard ${id}.` });
      await importAnswersJsonl(db, { path: 'a.jsonl', content: [desc('d1'), desc('d2'), desc('d3')].join('\n') });
      await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('lex', 'lexical', 'lexical', '{}', 'h1'), ('idle', 'lexical', 'lexical', '{}', 'h2')`);
      await db.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
         select a.id, (select id from judges where slug = 'lex'), (select id from rubric_versions limit 1), 'ok', 0.5, v.items::jsonb, '{}'::jsonb
           from answers a join (values ('d1', '[{"id":"barn","verdict":"correct"},{"id":"farmer","verdict":"incorrect"}]'),
                                       ('d2', '[{"id":"barn","verdict":"partial"},{"id":"farmer","verdict":"incorrect"}]'),
                                       ('d3', '[{"id":"barn","verdict":"missing"},{"id":"farmer","verdict":"correct"}]')) as v(id, items) on v.id = a.external_id`,
      );
      await db.execute(
        `insert into labels (answer_id, item_key, annotator, kind, label)
         select a.id, v.item, v.who, 'human', v.label from answers a join (values
           ('d1', 'barn', 'h1', 'correct'), ('d1', 'farmer', 'h1', 'partial'), ('d2', 'barn', 'h1', 'correct'), ('d2', 'farmer', 'h1', 'incorrect'),
           ('d1', '', 'h1', 'pass'),
           ('d1', 'barn', 'h2', 'correct'), ('d1', 'farmer', 'h2', 'incorrect'), ('d2', 'barn', 'h2', 'partial'), ('d2', 'farmer', 'h2', 'incorrect'),
           ('d1', 'barn', 'h3', 'partial'), ('d1', 'farmer', 'h3', 'incorrect'), ('d2', 'barn', 'h3', 'partial'), ('d2', 'farmer', 'h3', 'missing')) as v(id, item, who, label) on v.id = a.external_id`,
      );
      const app = createApp({ database: db, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
      const { key } = await createKey(db, { scopes: ['read'], name: 'test read' });
      for (const q of ask) {
        const res = await app.request(`/api/reports/calibration?${q}`, { headers: { authorization: `Bearer ${key}` } });
        api[q] = { status: res.status, body: (await res.json()) as Json };
      }
    } finally {
      await db.close();
    }
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  const cli = (...args: string[]) => runCli(['calibrate', '--run', 'r', '--scale', 'verdict', '--seed', '1', '--json', ...args], { env });

  it('a judge with grades: the same units, answers and figures; graded answers nobody labelled are no units', () => {
    const r = cli('--judge', 'lex');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const fromCli = r.json();
    const fromApi = api[ask[0]!]!;
    expect(fromApi.status).toBe(200);
    expect(fromApi.body).toMatchObject({ units: 4, answers: 2, humans: ['h1', 'h2', 'h3'], judges: ['lex'], setAside: 1 });
    expect(fromCli).toMatchObject({ units: 4, answers: 2, humans: ['h1', 'h2', 'h3'], judges: ['lex'], setAside: 1 });
    expect(fromCli.judgeReports[0].units).toBe(4);
    expect(fromCli.notes).toContain('1 label(s) of another scale than verdict, or claim marks, set aside');
    expect(figures(fromCli)).toEqual(figures(fromApi.body));
  }, 120_000);

  it('a judge that graded nothing of the run: the people’s figures and an empty judge side, said by name, on both (exit 0, 200)', () => {
    for (const [judge, q] of [
      ['idle', ask[1]!],
      ['claude', ask[2]!],
    ] as const) {
      const fromApi = api[q]!;
      expect(fromApi.status, JSON.stringify(fromApi.body).slice(0, 200)).toBe(200);
      const r = cli('--judge', judge);
      expect(r.stderr, judge).toBe('');
      expect(r.code, judge).toBe(0);
      const fromCli = r.json();
      expect(fromCli).toMatchObject({ units: 4, answers: 2, humans: ['h1', 'h2', 'h3'], judges: [], judgeReports: [] });
      expect(fromCli.notes).toContain(`judge '${judge}' has no grade of the labelled answers on the verdict scale: only the human ceiling is reported`);
      expect(figures(fromCli)).toEqual(figures(fromApi.body));
    }
  }, 120_000);

  it('the human side formed the same way (?humans= and --humans): one reference rater, the same figures', () => {
    for (const [mode, q] of [
      ['majority', ask[4]!],
      ['adjudicated', ask[5]!],
    ] as const) {
      const fromApi = api[q]!;
      expect(fromApi.status, JSON.stringify(fromApi.body).slice(0, 200)).toBe(200);
      expect(fromApi.body.humans).toEqual([mode]);
      // The whole-answer 'pass' is set aside and counted whichever way the human side is formed (before, 0 here).
      expect(fromApi.body.setAside).toBe(1);
      const r = cli('--judge', 'lex', '--humans', mode);
      expect(r.stderr, mode).toBe('');
      expect(r.code, mode).toBe(0);
      expect(r.json().humans).toEqual([mode]);
      expect(figures(r.json())).toEqual(figures(fromApi.body));
    }
    // The people's majority is not each of them: the question asked is answered, not the default one.
    expect(api[ask[4]!]!.body.judgeReports[0].vsMajority).toEqual(api[ask[0]!]!.body.judgeReports[0].vsMajority);
    expect(Object.keys(api[ask[4]!]!.body.judgeReports[0].vsHumans)).toEqual(['majority']);
  }, 120_000);

  it('a judge that names nothing: refused on both (exit 2, 404)', () => {
    expect(api[ask[3]!]!.status).toBe(404);
    const r = cli('--judge', 'nobody');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/judge 'nobody'/);
  }, 120_000);
});
