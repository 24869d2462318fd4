import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { farmyard } from './harness.ts';

/**
 * A replay file (recorded verdicts, human labels) with a key given twice: JSON.parse kept the last, and
 * the output was handed on as JSON.stringify of the parsed value, so the judge reply check for repeated
 * keys never saw the repeat: {"label":"fail","label":"pass"} graded pass, ok. The file is refused,
 * naming its line and the key's path.
 */
const dir = mkdtempSync(join(tmpdir(), 'assay-replay-dup-'));
const judgeOf = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return parseJudgeConfig({ id: 'human', provider: 'replay', model: 'human-labels', mode: 'reference-match', replay: file }, 'replay judge');
};
const TWICE = 'key given twice (JSON keeps only one of the values; give it once)';

describe('replay file with a key given twice', () => {
  it('a JSON Lines row whose output names the label twice is refused, naming the line', async () => {
    const judge = judgeOf('l.jsonl', '{"answer":"a-1","output":{"label":"pass","rationale":"r"}}\n{"answer":"a-2","output":{"label":"fail","label":"pass","rationale":"r"}}\n');
    await expect(createAdapter(judge, {})).rejects.toMatchObject({ code: 'bad_input', message: `replay file ${join(dir, 'l.jsonl')}: line 2: output.label: ${TWICE}` });
  });

  it('a one-row file or a JSON array naming the answer twice is refused', async () => {
    const one = judgeOf('one.jsonl', '{"answer":"a-1","answer":"a-2","output":{"label":"pass","rationale":"r"}}\n');
    await expect(createAdapter(one, {})).rejects.toMatchObject({ code: 'bad_input', message: `replay file ${join(dir, 'one.jsonl')}: answer: ${TWICE}` });
    const array = judgeOf('all.json', '[{"answer":"a-1","output":{"label":"pass","rationale":"r"}},{"answer":"a-2","output":{"label":"fail","rationale":"r","rationale":"s"}}]');
    await expect(createAdapter(array, {})).rejects.toMatchObject({ code: 'bad_input', message: `replay file ${join(dir, 'all.json')}: [1].output.rationale: ${TWICE}` });
  });

  it('a file without repeats replays as before', async () => {
    const judge = judgeOf('ok.jsonl', '{"answer":"a-1","output":{"label":"pass","rationale":"r"}}\n{"answer":"a-2","output":{"label":"fail","rationale":"r"}}\n');
    const engine = createJudgeEngine({ judge, adapter: await createAdapter(judge, {}), cache: new MemoryCache(), ledger: new MemoryLedger() });
    expect((await engine.grade({ rubric: farmyard, answer: 'x', answerId: 'a-2' })).output).toEqual({ label: 'fail', rationale: 'r' });
  });
});
