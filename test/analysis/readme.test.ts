import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrate, formatCalibration } from '../../src/analysis/calibration/index.ts';
import { describeThenSolve, formatDescribeThenSolve, parseDtsJsonl } from '../../src/analysis/describe-then-solve/index.ts';
import { parseLabels } from '../../src/domain/labels.ts';
import { FIXTURES, ROOT } from '../helpers/cli.ts';

/** The worked examples of the README's calibration section are real output, and stay so. */
const readme = readFileSync(`${ROOT}README.md`, 'utf8');
const section = readme.slice(readme.indexOf('<!-- section:calibration -->'), readme.indexOf('<!-- /section:calibration -->'));
const blocks = [...section.matchAll(/```[a-z]*\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

describe('README calibration section', () => {
  it('shows the current output of assay calibrate on the example set', () => {
    const path = 'calibration/example-small.jsonl';
    const text = formatCalibration(calibrate(parseLabels(readFileSync(`${ROOT}${path}`, 'utf8'), path, 'verdict'), { scale: 'verdict' }));
    expect(blocks).toContain(text);
  });

  it('shows the current output of assay analyze describe-then-solve on the 209-item fixture', () => {
    const path = `${FIXTURES}describe-then-solve-209.jsonl`;
    const text = formatDescribeThenSolve(describeThenSolve(parseDtsJsonl(readFileSync(path, 'utf8'), path)));
    expect(blocks).toContain(text);
  });
});
