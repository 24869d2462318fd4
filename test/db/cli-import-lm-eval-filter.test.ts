import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useCliRubricDatabase } from '../helpers/cli-database.ts';
import { ENGINES } from '../helpers/db.ts';

/**
 * `assay import answers FILE --from lm-eval --filter NAME` through the real binary. A gsm8k samples file holds
 * strict-match and flexible-extract lines for every document; the first filter's were imported, exit 0.
 */

const SLOW = 300_000;
const FILE = 'test/fixtures/import-formats/lm-eval-gsm8k-two-filters.jsonl';

for (const engine of ENGINES) {
  describe(`assay import answers --from lm-eval --filter [${engine}]`, () => {
    const db = useCliRubricDatabase(engine, 'assay-lm-filter-');
    const { tmp } = db;
    const args = (...more: string[]) => ['import', 'answers', FILE, '--from', 'lm-eval', '--model', 'qwen-vl', '--task', 'describe', '--rubric', 'farmyard-54', ...more];
    const expectBadInput = (a: string[], message: string) => {
      const r = runCli(a, { env: db.env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toContain(message);
    };
    /** The run's stored answers, read back through `assay export` (id → text). */
    const stored = (out: string): Record<string, string> => {
      const r = runCli(['export', '--run', 'gsm', '--out', join(tmp, out), '--format', 'jsonl'], { env: db.env });
      expect(r.code, r.stderr).toBe(0);
      const rows = readFileSync(join(tmp, out, 'answers.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string });
      return Object.fromEntries(rows.map((a) => [a.id, a.text]));
    };

    it('several filters without --filter, an unknown one, or --filter without lm-eval: exit 2 naming the filters, nothing written', () => {
      expectBadInput([...args('--run', 'gsm')], 'holds the samples of 2 filters (strict-match, flexible-extract), each with its own response text and metrics; choose one with --filter NAME');
      expectBadInput([...args('--run', 'gsm', '--filter', 'flexible')], "--filter 'flexible': no such filter in the file (it holds strict-match, flexible-extract)");
      expectBadInput([...args('--run', 'gsm', '--filter', '')], '--filter: must not be empty');
      expectBadInput(['import', 'answers', 'test/fixtures/import-formats/inspect-log.json', '--from', 'inspect', '--task', 'describe', '--rubric', 'farmyard-54', '--filter', 'none'], '--filter goes with --from lm-eval');
      expectBadInput(['import', 'answers', FILE, '--filter', 'none'], '--filter goes with --from lm-eval');
      expect(runCli(['export', '--run', 'gsm', '--out', join(tmp, 'none'), '--format', 'jsonl'], { env: db.env }).code).toBe(2);
    }, SLOW);

    it("--filter flexible-extract stores that filter's answers and scores; the other filter into the same run is refused, not stored beside or over them", () => {
      const r = runCli([...args('--run', 'gsm', '--filter', 'flexible-extract', '--json')], { env: db.env });
      expect(r.code, r.stderr).toBe(0);
      const j = r.json();
      expect(j).toMatchObject({ from: 'lm-eval', imported: 3, unchanged: 0, grades: { judges: ['lm-eval:exact_match,flexible-extract'], stored: 3, unchanged: 0 } });
      expect(j.skipped).toEqual([{ where: FILE, reason: "filter 'strict-match': 3 lines (from line 1) not imported: --filter flexible-extract" }]);
      const again = runCli([...args('--run', 'gsm', '--filter', 'flexible-extract', '--json')], { env: db.env });
      expect(again.json()).toMatchObject({ imported: 0, unchanged: 3, grades: { stored: 0, unchanged: 3 } });
      expectBadInput([...args('--run', 'gsm', '--filter', 'strict-match')], "answer '0' of run 'gsm' already exists with different content (text)");
      expect(stored('after')).toEqual({ '0': '5', '1': '10', '2': '9' });
    }, SLOW);
  });
}
