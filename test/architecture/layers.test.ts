import { describe, expect, it } from 'vitest';
import { edgesOf, folderCycles, packageImports, type Rule, srcEdges, srcFiles, violations } from '../helpers/import-graph.ts';
import { ROOT } from '../helpers/cli.ts';

/**
 * The layers of design §1, held by a test: who may import whom between the top-level folders of src/,
 * no cycles between them, and SDKs only in the provider adapters. Each rule has a deliberate violation
 * below that it must catch, so none of them can pass vacuously.
 */

const SRC = `${ROOT}src`;
const PURE = ['scoring', 'stats', 'analysis'] as const;
const FRONTS = ['api', 'web', 'cli'] as const;

/** The database handle the composition root opens may be held by a front; the schema and the stores may not. */
const handleOnly = (e: { to: string }): boolean => e.to === 'db/client.ts';

const RULES: readonly Rule[] = [
  {
    why: 'the pure core (scoring, stats, analysis) imports only domain/ and itself; formatting for a terminal belongs to cli/',
    from: PURE,
    to: ['db', 'api', 'judges', 'jobs', 'cli', 'web', 'services', 'app', 'server', 'config', 'main', 'threads', 'input'],
  },
  { why: 'api/, web/ and cli/ call services/, never the ORM (enums and shared types live in domain/)', from: FRONTS, to: ['db'], allow: handleOnly },
  { why: 'api/, web/ and cli/ grade through services/grading/, never the judge engine or the queue directly', from: FRONTS, to: ['judges', 'jobs'] },
  { why: 'the judge engine receives its cache and ledger as interfaces; it never imports db/ or a use case', from: ['judges'], to: ['db', 'services', 'jobs', 'api', 'web', 'cli', 'app', 'server'] },
  { why: 'the queue is infrastructure under services/: grading lives in services/grading/', from: ['jobs'], to: ['services', 'api', 'web', 'cli'] },
  { why: 'db/ implements interfaces for the layers above; it never calls them', from: ['db'], to: ['services', 'api', 'web', 'cli', 'jobs'] },
  { why: 'domain/ is the bottom layer', from: ['domain'], to: ['scoring', 'stats', 'analysis', 'judges', 'db', 'services', 'api', 'web', 'cli', 'jobs', 'app', 'config', 'server', 'main', 'input', 'threads'] },
];

/** Packages that are provider SDKs: only the adapters (judges/adapters/, judges/batch/) may import them. */
const SDKS = new Set(['@anthropic-ai/sdk', 'openai']);
const SDK_HOMES = ['judges/adapters/', 'judges/batch/'];

describe('layers (design §1)', () => {
  const edges = srcEdges(SRC);

  it('reads the real graph (a vacuous pass is impossible)', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from === 'server.ts' && e.to.startsWith('api/'))).toBe(true);
  });

  it('every import between top-level folders follows the layer rules', () => {
    expect(violations(edges, RULES)).toEqual([]);
  });

  it('has no cycle between top-level folders of src/', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('imports a provider SDK only in the provider adapters', () => {
    const misplaced = packageImports(srcFiles(SRC))
      .filter((i) => SDKS.has(i.pkg) && !SDK_HOMES.some((h) => i.from.startsWith(h)))
      .map((i) => `${i.from}:${i.line} imports ${i.pkg}`);
    expect(misplaced).toEqual([]);
  });
});

describe('the layer test catches each kind of violation', () => {
  // Each case is a small source tree that breaks one rule the way issue 12 found it broken.
  const caught = (files: Record<string, string>): { broken: string[]; cycles: string[] } => {
    const edges = edgesOf('/', Object.entries(files).map(([path, text]) => ({ path, text })));
    return { broken: violations(edges, RULES), cycles: folderCycles(edges) };
  };

  it.each([
    ['analysis formatting with cli/table.ts', { 'analysis/calibration/format.ts': "import { table } from '../../cli/table.ts';" }],
    ['a route importing an enum from db/schema.ts', { 'api/routes/answers.ts': "import { answerStatus } from '../../db/schema.ts';" }],
    ['a page importing an enum from db/schema.ts', { 'web/pages/answers.tsx': "import type { taskKind } from '../../db/schema.ts';" }],
    ['a route calling judges/ directly', { 'api/routes/grades.ts': "import { loadJudge } from '../../judges/config.ts';" }],
    ['a front starting the queue itself', { 'api/routes/jobs.ts': "const { boss } = await import('../../jobs/boss.ts');" }],
    ['the queue calling a use case', { 'jobs/worker.ts': "export { createGradingSession } from '../services/grading.ts';" }],
    ['the judge engine writing to the database', { 'judges/engine.ts': "import { grades } from '../db/schema.ts';" }],
  ])('%s', (_, files) => {
    expect(caught(files).broken).toHaveLength(1);
  });

  it('lets a front hold the database handle', () => {
    expect(caught({ 'web/pages/leaderboard.tsx': "import type { Database } from '../../db/client.ts';" }).broken).toEqual([]);
  });

  it('ignores imports in comments', () => {
    expect(caught({ 'scoring/x.ts': "/** import { a } from '../db/schema.ts' */\n// import '../api/app.ts'\nexport const x = 1;" }).broken).toEqual([]);
  });

  it.each([
    ['server → api → web → server', { 'server.ts': "import { createApp } from './api/app.ts';", 'api/routes/index.ts': "import { web } from '../../web/index.tsx';", 'web/index.tsx': "import { judgeDescription } from '../server.ts';" }, ['api', 'server', 'web']],
    ['api ⇄ web', { 'api/routes/index.ts': "import { web } from '../../web/index.tsx';", 'web/respond.tsx': "import { toCsv } from '../api/csv.ts';" }, ['api', 'web']],
    ['jobs ⇄ services', { 'jobs/worker.ts': "import { x } from '../services/grading.ts';", 'services/jobs.ts': "import { boss } from '../jobs/boss.ts';" }, ['jobs', 'services']],
  ])('a cycle %s', (_, files, members) => {
    const { cycles } = caught(files);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toContain(`cycle between ${members.join(', ')}`);
  });

  it('finds an SDK imported outside the adapters', () => {
    const found = packageImports([{ path: 'services/grading/session.ts', text: "import OpenAI from 'openai';\nimport { z } from 'zod';" }]);
    expect(found.filter((i) => SDKS.has(i.pkg)).map((i) => i.from)).toEqual(['services/grading/session.ts']);
  });
});
