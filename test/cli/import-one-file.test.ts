import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

/**
 * `assay import answers` and `assay import labels` read one file. Given a directory they imported its
 * first file only and exited 0, the other files dropped without a word; now a directory is bad input,
 * refused before the database is opened (so nothing can be written).
 */

const tmp = mkdtempSync(join(tmpdir(), 'assay-one-file-'));
const dir = join(tmp, 'in');
mkdirSync(dir);
const row = (id: string) => JSON.stringify({ id, model: 'm', task: 'describe', rubric: 'farmyard-54', text: id }) + '\n';
writeFileSync(join(dir, 'a.jsonl'), row('a'));
writeFileSync(join(dir, 'b.jsonl'), row('b'));
const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };

it.each([
  ['answers', ['import', 'answers', dir]],
  ['answers --from', ['import', 'answers', dir, '--from', 'lm-eval', '--task', 'describe', '--rubric', 'farmyard-54', '--model', 'm']],
  ['labels', ['import', 'labels', dir]],
])('import %s DIR: exit 2 naming the directory, nothing opened or written', (_, args) => {
  const r = runCli(args, { env });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toEqual([`assay ${args.slice(0, 2).join(' ')}: ${dir}: is a directory (this import reads one file; import each file of it on its own)`]);
  expect(existsSync(join(tmp, 'data'))).toBe(false);
}, 120_000);
