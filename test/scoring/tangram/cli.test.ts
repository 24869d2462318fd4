import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from '../../helpers/cli.ts';

const T = `${FIXTURES}tangram/`;
const tmp = mkdtempSync(join(tmpdir(), 'assay-tangram-'));
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

describe('assay score tangram (one answer)', () => {
  it('prints exactly the documented keys with --json', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}square.target.json`, '--answer', `${T}square.answer.txt`, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({
      status: 'repaired',
      syntaxError: false,
      rigidError: false,
      overlapError: false,
      connectivityError: false,
      iou: 1,
      hausdorff: 0,
      validPass: true,
      success: true,
      problems: ['escaped LaTeX backslashes inside JSON strings'],
    });
  });

  it('a bad answer is a result (exit 0), not an error', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}square.target.json`, '--answer', write('six.txt', '{"pieces": [{"type": "square"}]'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'syntax_error', syntaxError: true, iou: null, success: false });
  });

  it('readable output lists the problems', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}hexagon.target.json`, '--answer', `${T}square.light.answer.txt`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^validPass\s+true$/m);
    expect(r.stdout).toMatch(/^success\s+false$/m);
    expect(r.stdout).toContain('  - silhouette IoU 0.7778 is below 0.99');
  });

  it('--iou-threshold moves the success line', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}hexagon.target.json`, '--answer', `${T}square.light.answer.txt`, '--iou-threshold', '0.75', '--json']);
    expect(r.json().success).toBe(true);
  });

  it.each([
    [['--target', 'nope.json', '--answer', `${T}square.answer.txt`], 'target nope.json: no such file'],
    [['--answer', `${T}square.answer.txt`], 'missing required option --target (the silhouette to match)'],
    [['--target', `${T}square.target.json`], 'give exactly one of --answer A.txt (one answer) or --answers A.jsonl (a batch)'],
    [['--target', `${T}square.answer.txt`, '--answer', `${T}square.answer.txt`], `target ${T}square.answer.txt: not valid JSON`],
    [['--target', 'BAD', '--answer', `${T}square.answer.txt`], 'T.json: outline crosses itself'],
    [['--target', `${T}square.target.json`, '--answer', `${T}square.answer.txt`, '--tolerance', '0'], '--tolerance must be > 0'],
    [['--target', `${T}square.target.json`, '--answer', `${T}square.answer.txt`, '--iou-threshold', '2'], '--iou-threshold must be ≤ 1'],
  ])('bad input %j exits 2 with one line', (args, message) => {
    const argv = args.map((a) => (a === 'BAD' ? write('T.json', '{"outline": [[0,0],[2,2],[2,0],[0,1]]}') : a));
    const r = runCli(['score', 'tangram', ...argv, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
  });
});

describe('assay score tangram --answers (batch)', () => {
  it('gives per-model rates and per-answer results', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}square.target.json`, '--answers', `${T}answers.jsonl`, '--json']);
    expect(r.code).toBe(0);
    const { models, results } = r.json();
    expect(results).toHaveLength(12);
    expect(models.alpha).toEqual({
      n: 4,
      parsed: 4,
      syntaxErrorRate: 0,
      rigidErrorRate: 0.25,
      physicalErrorRate: 0.5,
      overlapErrorRate: 0.5,
      connectivityErrorRate: 0,
      validPassRate: 0.5,
      successRate: 0.5,
      meanIou: expect.closeTo((1 + 1 + 0.997506234413947 + 0.953125) / 4, 9),
      meanHausdorff: expect.closeTo((0 + 0 + 0.05 + 0.25) / 4, 9),
    });
    // beta: truncated + six pieces (syntax), a detached piece, the hexagon against the square, the hexagon against its own row target
    expect(models.beta).toMatchObject({ n: 5, parsed: 3, syntaxErrorRate: 0.4, connectivityErrorRate: 0.2, validPassRate: 0.4, successRate: 0.2 });
    expect(models.beta.meanIou).toBeCloseTo((7 / 9 + 7 / 9 + 1) / 3, 9);
    expect(models.gamma).toMatchObject({ n: 3, parsed: 1, syntaxErrorRate: 2 / 3, successRate: 1 / 3, meanIou: 1 });
    expect(results.find((x: { id: string }) => x.id === 'hex-1')).toMatchObject({ model: 'beta', success: true });
  });

  it('--targets JSONL keyed by id; a row without any target is bad input', () => {
    const answers = write('a.jsonl', ['{"id": "h", "model": "m", "response": null}', '{"id": "s", "model": "m", "response": "no"}'].join('\n'));
    const targets = write('t.jsonl', '{"id": "h", "outline": [[0,0],[1,0],[0,1]]}\n');
    const r = runCli(['score', 'tangram', '--answers', answers, '--targets', targets, '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`answers ${answers}: line 2: no target`);
    const ok = runCli(['score', 'tangram', '--answers', answers, '--targets', targets, '--target', `${T}square.target.json`, '--json']);
    expect(ok.code).toBe(0);
    expect(ok.json().models.m).toMatchObject({ n: 2, syntaxErrorRate: 1, meanIou: null, reason: 'no answer of this model could be measured (all syntax errors)' });
  });

  it('a second row for the same model and id is bad input, not a second answer in the rates', () => {
    // Before: both rows counted, so the repeated answer weighed double in every rate of that model (exit 0).
    const answers = write('dup.jsonl', ['{"id": "q1", "model": "m", "response": null}', '{"id": "q2", "model": "m", "response": null}', '{"id": "q1", "model": "n", "response": null}', '{"id": "q1", "model": "m", "response": "again"}'].join('\n'));
    const r = runCli(['score', 'tangram', '--answers', answers, '--target', `${T}square.target.json`, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`assay score tangram: answers ${answers}: line 4: a second answer of model 'm' to id 'q1' (first on line 1)`);
    // Rows without an id name no item, so they cannot repeat one.
    const anonymous = write('anon.jsonl', ['{"model": "m", "response": null}', '{"model": "m", "response": null}'].join('\n'));
    expect(runCli(['score', 'tangram', '--answers', anonymous, '--target', `${T}square.target.json`, '--json']).json().models.m.n).toBe(2);
  });

  it('readable output is a table of rates in percent', () => {
    const r = runCli(['score', 'tangram', '--target', `${T}square.target.json`, '--answers', `${T}answers.jsonl`]);
    expect(r.stdout.split('\n')[0]).toMatch(/^model\s+n\s+syntax\s+rigid\s+physical\s+validPass\s+success\s+meanIoU\s+meanHausdorff$/);
    expect(r.stdout).toMatch(/^alpha\s+4\s+0\.0%\s+25\.0%\s+50\.0%\s+50\.0%\s+50\.0%\s+0\.9877\s+0\.0750$/m);
  });
});

describe('the outline multiple-choice task and the task-1 ↔ task-2 correlation', () => {
  it('score choice on the outline key, then stats corr across models (the README walk-through)', () => {
    const choice = runCli(['score', 'choice', '--key', `${T}outline-choice.key.jsonl`, '--responses', `${T}outline-choice.responses.jsonl`, '--json']);
    expect(choice.code).toBe(0);
    const tangram = runCli(['score', 'tangram', '--target', `${T}square.target.json`, '--answers', `${T}answers.jsonl`, '--json']);
    const models = ['alpha', 'beta', 'gamma'];
    const acc = models.map((m) => choice.json().models[m].accuracy);
    const success = models.map((m) => tangram.json().models[m].successRate);
    expect(acc).toEqual([1, 0.5, 0.25]);
    expect(success).toEqual([0.5, 0.2, 1 / 3]);
    const corr = runCli(['stats', 'corr', '--x', write('x.json', JSON.stringify(acc)), '--y', write('y.json', JSON.stringify(success)), '--method', 'spearman', '--json']);
    expect(corr.code).toBe(0);
    // ranks (3, 2, 1) and (3, 1, 2): rho = 1 − 6·(0 + 1 + 1)/(3·8) = 0.5
    expect(corr.json()).toMatchObject({ r: 0.5, n: 3 });
  });
});
