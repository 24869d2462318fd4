import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { anchors, docFiles, relativeLinks, slugify } from './markdown.ts';

/**
 * Every relative link in the README, docs/ and the test map points at a file that exists, and every
 * `#anchor` at a heading of its target (GitHub's slugs), so moving a section cannot leave a dead link.
 */

const FILES = [...docFiles(), 'test/README.md'];

function anchorsOf(path: string): Set<string> {
  return anchors(readFileSync(join(ROOT, path), 'utf8'));
}

describe('relative links and anchors', () => {
  for (const file of FILES) {
    it(`${file}: every link resolves`, () => {
      const broken: string[] = [];
      for (const { line, target } of relativeLinks(readFileSync(join(ROOT, file), 'utf8'))) {
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
          broken.push(`${file}:${line}: ${target} (no file ${resolved})`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md') || statSync(join(ROOT, resolved)).isDirectory()) {
          broken.push(`${file}:${line}: ${target} (an anchor into a file that is not Markdown)`);
        } else if (!anchorsOf(resolved).has(decodeURIComponent(anchor))) {
          broken.push(`${file}:${line}: ${target} (no heading '#${anchor}' in ${resolved})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('GitHub heading slugs', () => {
  it.each([
    ['Grid assembly: `assay score grid`, `assay baseline grid`', 'grid-assembly-assay-score-grid-assay-baseline-grid'],
    ['Description scoring — `assay score description`', 'description-scoring--assay-score-description'],
    ['Statistics — `assay stats …`', 'statistics--assay-stats-'],
    ['Reports (`GET /api/reports/*`, scope read)', 'reports-get-apireports-scope-read'],
    ['Many raters, missing values: `assay stats alpha`', 'many-raters-missing-values-assay-stats-alpha'],
    ['Crash recovery: worker liveness, job leases, the usage ledger', 'crash-recovery-worker-liveness-job-leases-the-usage-ledger'],
    ['**Bold** and [a link](x.md) with snake_case', 'bold-and-a-link-with-snake_case'],
  ])('%s → %s', (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });

  it('numbers a repeated heading as GitHub does', () => {
    expect([...anchors('# Tests\n## Tests\n```\n# not a heading\n```\n## Tests\n')]).toEqual(['tests', 'tests-1', 'tests-2']);
  });
});
