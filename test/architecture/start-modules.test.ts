import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

/**
 * What a process loads before its first line runs: the closure of static value imports (type-only
 * imports and `import()` excluded, as esbuild and node treat them). vega and vega-lite (about 1.5 MB) are
 * for the report thread alone: the server loads every page at start, and a page that imported a chart
 * renderer directly put vega on the main thread of every `npm start` (issue 15's restart figure).
 */

const SRC = join(ROOT, 'src');
const STATIC = /(?:^|[;\n])\s*(?:import\s+(?!type\s)(?:[\w*{}\s,$]+?\s+from\s+)?|export\s+(?!type\s)(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+)(['"])([^'"]+)\1/g;

/** Relative files and bare packages the module graph from `entry` loads at once. */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(STATIC)) {
      const spec = m[2]!;
      if (spec.startsWith('.')) {
        const target = join(dirname(file), spec);
        if (!existsSync(target)) throw new Error(`${relative(SRC, file)} imports ${spec}, which does not exist`);
        visit(target);
      } else if (!spec.startsWith('node:')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
  };
  visit(join(SRC, entry));
  return { files, packages };
}

describe('modules loaded at start', () => {
  it('the server (src/main.ts → app) loads no chart renderer on the main thread', () => {
    const { files, packages } = staticClosure('app.ts');
    expect(files.size).toBeGreaterThan(100);
    expect(packages.has('hono')).toBe(true);
    expect([...packages].filter((p) => p.startsWith('vega'))).toEqual([]);
    expect([...files].map((f) => relative(SRC, f)).filter((f) => f === 'web/charts.ts')).toEqual([]);
  });

  it('the chart tasks do load vega (the check above can fail)', () => {
    for (const task of ['web/pages/report-chart-tasks.ts', 'web/pages/calibration-panel-chart-tasks.ts']) {
      const { packages } = staticClosure(task);
      expect(packages.has('vega')).toBe(true);
      expect(packages.has('vega-lite')).toBe(true);
    }
  });

  it('`assay stats` (start-up measured against node -e 0) loads no YAML parser; a command reading rubric files does', () => {
    const cli = ['cli/main.ts', 'cli/commands/stats.ts'].map((f) => staticClosure(f).packages);
    for (const packages of cli) expect(packages.has('yaml')).toBe(false);
    expect(staticClosure('cli/commands/description.ts').packages.has('yaml')).toBe(true);
  });
});
