import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useCliRubricDatabase } from '../helpers/cli-database.ts';
import { ENGINES } from '../helpers/db.ts';

/** `assay import answers --from FORMAT` through the real binary: runs, answers, imported grades, skips, exit 2. */

const SLOW = 300_000;
const DIR = 'test/fixtures/import-formats';

for (const engine of ENGINES) {
  describe(`assay import answers --from [${engine}]`, () => {
    const db = useCliRubricDatabase(engine, 'assay-foreign-');
    const { tmp } = db;
    const expectBadInput = (args: string[], pattern: RegExp) => {
      const r = runCli(args, { env: db.env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(pattern)]);
    };
    const run = (args: string[]) => runCli(['import', 'answers', ...args, '--task', 'describe', '--rubric', 'farmyard-54', '--json'], { env: db.env });

    it('Inspect: 4 answers, 3 scores as grades of inspect:model_graded_qa (inspect:match gives a 7, so none of its values), the skips reported; a rerun changes nothing', () => {
      const r = run([`${DIR}/inspect-log.json`, '--from', 'inspect', '--run', 'inspect-run']);
      expect(r.code, r.stderr).toBe(0);
      const j = r.json();
      expect(j).toMatchObject({ from: 'inspect', imported: 4, unchanged: 0, runs: [{ name: 'inspect-run', model: 'openai/gpt-4o', created: true, imported: 4 }] });
      expect(j.grades).toEqual({ judges: ['inspect:model_graded_qa'], stored: 3, unchanged: 0 });
      expect(j.skipped).toHaveLength(2);
      const again = run([`${DIR}/inspect-log.json`, '--from', 'inspect', '--run', 'inspect-run']).json();
      expect(again).toMatchObject({ imported: 0, unchanged: 4, grades: { stored: 0, unchanged: 3 } });
    }, SLOW);

    it('promptfoo: one run per provider; lm-eval and VLMEvalKit need --model; text output names the skips', () => {
      const p = run([`${DIR}/promptfoo-results.json`, '--from', 'promptfoo']).json();
      expect(p.runs.map((x: { name: string; imported: number }) => [x.name, x.imported])).toEqual([['gpt-4o-mini', 1], ['claude-haiku', 2]]);
      expect(p.grades).toEqual({ judges: ['promptfoo:promptfoo'], stored: 2, unchanged: 0 });
      expectBadInput(['import', 'answers', `${DIR}/lm-eval-samples.jsonl`, '--from', 'lm-eval', '--filter', 'none', '--task', 'describe', '--rubric', 'farmyard-54'], /lm-eval-samples\.jsonl:1: model: required \(in the row or with --model\)/);
      const lm = runCli(['import', 'answers', `${DIR}/lm-eval-samples.jsonl`, '--from', 'lm-eval', '--filter', 'none', '--model', 'hf-llava', '--task', 'describe', '--rubric', 'farmyard-54'], { env: db.env });
      expect(lm.code, lm.stderr).toBe(0);
      expect(lm.stdout).toContain('3 answers imported, 0 unchanged, 0 assemblies scored; 3 lm-eval scores stored as grades (judge lm-eval:exact_match), 0 unchanged');
      expect(lm.stdout).toContain(`skipped 5:\n  ${DIR}/lm-eval-samples.jsonl: filter 'strict-match': 1 line (from line 4) not imported: --filter none\n  ${DIR}/lm-eval-samples.jsonl:1: score 'bleu'`);
      const v = run([`${DIR}/vlmevalkit-predictions.tsv`, '--from', 'vlmevalkit', '--model', 'llava-v1.5-7b']).json();
      expect(v).toMatchObject({ imported: 3, grades: { judges: [], stored: 0 } });
      expect(v.skipped).toHaveLength(3);
    }, SLOW);

    it('bad input exits 2 naming the record and writes nothing', () => {
      const bad = join(tmp, 'bad.jsonl');
      writeFileSync(bad, '{"doc_id": 0, "filtered_resps": ["a"], "filter": "none"}\n{"doc_id": 1, "filtered_resps": ["' + 'x'.repeat(10) + '"]\n');
      const base = ['import', 'answers', bad, '--from', 'lm-eval', '--model', 'm-bad', '--task', 'describe', '--rubric', 'farmyard-54'];
      expectBadInput(base, /bad\.jsonl:2: not valid JSON/);
      expectBadInput(['import', 'answers', `${DIR}/inspect-log.json`, '--from', 'helm', '--task', 'describe'], /--from must be one of inspect\|promptfoo\|lm-eval\|vlmevalkit, got 'helm'/);
      expectBadInput(['import', 'answers', `${DIR}/inspect-log.json`, '--from', 'inspect'], /--from inspect needs --task/);
      expectBadInput(['import', 'answers', `${DIR}/inspect-log.json`, '--from', 'inspect', '--task', 'describe', '--rubric', 'no-such-rubric', '--run', 'r2'], /rubric/);
      writeFileSync(bad, '{"doc_id": 0, "filtered_resps": [[-1, false]]}\n');
      expectBadInput(base, /bad\.jsonl: no answers to import \(1 record\(s\) skipped; the first: .*bad\.jsonl:1: no generated text/);
      const list = runCli(['import', 'answers', `${DIR}/inspect-log.json`, '--from', 'inspect', '--task', 'describe', '--rubric', 'farmyard-54', '--run', 'inspect-run', '--json'], { env: db.env }).json();
      expect(list.unchanged).toBe(4);
    }, SLOW);
  });
}
