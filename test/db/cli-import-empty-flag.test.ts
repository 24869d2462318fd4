import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useCliRubricDatabase } from '../helpers/cli-database.ts';
import { ENGINES } from '../helpers/db.ts';

const SLOW = 300_000;

/**
 * `assay import answers F --model m --run "$RUN"` with RUN unset gave --run '' and exited 0 with the rows
 * in run 'm' (the run named after the model: another run's answers, when it exists); `import labels
 * --run ''` read the rows' runs the same way. A flag given empty is refused (exit 2), as numberFlag refuses
 * `--top ''`, and nothing is written.
 */
for (const engine of ENGINES) {
  describe(`assay import: a flag given empty [${engine}]`, () => {
    const db = useCliRubricDatabase(engine, 'assay-empty-flag-');
    const { tmp } = db;

    it('exits 2 naming the flag and writes nothing', () => {
      const answers = join(tmp, 'a.jsonl');
      writeFileSync(answers, '{"id":"x","task":"describe","rubric":"farmyard-54","text":"A barn."}\n');
      for (const flag of ['run', 'effort', 'task']) {
        const r = runCli(['import', 'answers', answers, '--model', 'm', `--${flag}`, ''], { env: db.env });
        expect([r.code, r.stdout, r.stderr.trim()], flag).toEqual([2, '', `assay import answers: --${flag}: must not be empty (leave the flag out for the default)`]);
      }
      const labels = join(tmp, 'l.csv');
      writeFileSync(labels, 'answer,run,item,rater,label\nx,m,barn,h,correct\n');
      // Nothing was stored above: the same file imports as new into run r1, and its labels need that run named.
      expect(runCli(['import', 'answers', answers, '--model', 'm', '--run', 'r1', '--json'], { env: db.env }).json()).toMatchObject({ imported: 1, runs: [{ name: 'r1', created: true }] });
      const l = runCli(['import', 'labels', labels, '--run', ''], { env: db.env });
      expect([l.code, l.stderr.trim()]).toEqual([2, 'assay import labels: --run: must not be empty (leave the flag out for the default)']);
      const ok = runCli(['import', 'answers', answers, '--model', 'm', '--json'], { env: db.env });
      // Run 'm' is created only now: no refused import above had written it.
      expect(ok.json()).toMatchObject({ imported: 1, runs: [{ name: 'm', created: true }] });
    }, SLOW);
  });
}
