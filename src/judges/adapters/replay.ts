import { readFileSync } from 'node:fs';
import { badInput } from '../../domain/errors.ts';
import { assertUniqueKeys } from '../../domain/json-check.ts';
import type { JudgeConfig } from '../config.ts';
import { type Judge, type JudgeReply, type JudgeRequest, ProviderCallError, ZERO_USAGE } from '../types.ts';

/**
 * Replay: verdicts read from a file instead of a model — recorded judge output, or human labels in the
 * judge output shape. The file is either one output object (used for every answer) or JSON Lines /
 * a JSON array of {"answer": <answer id or sha256 of the answer text>, "rubric"?: id, "output": {...}}.
 * Replayed output goes through the same validation as a live judge's.
 */

interface ReplayRow {
  answer: string;
  rubric?: string;
  output: unknown;
}

const isRow = (v: unknown): v is ReplayRow => v !== null && typeof v === 'object' && 'answer' in v && 'output' in v;

function readRows(path: string): { single?: unknown; rows: ReplayRow[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw badInput(`replay file ${path}: no such file`);
  }
  const trimmed = text.trim();
  // JSON.parse keeps the last of a key given twice, and the output goes on as JSON.stringify of the
  // parsed value, so the judge reply's own repeated-key check never sees it: refused here.
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed) as unknown;
  } catch {
    const rows = trimmed.split(/\r?\n/).map((l, i) => {
      if (l.trim() === '') return null;
      let row: ReplayRow;
      try {
        row = JSON.parse(l) as ReplayRow;
      } catch {
        throw badInput(`replay file ${path}: line ${i + 1}: not valid JSON`);
      }
      assertUniqueKeys(l, `replay file ${path}: line ${i + 1}`);
      return row;
    });
    return { rows: rows.filter((r): r is ReplayRow => r !== null) };
  }
  assertUniqueKeys(trimmed, `replay file ${path}`);
  if (Array.isArray(whole)) return { rows: whole as ReplayRow[] };
  // A JSON Lines file of one row is one JSON object too: a row (answer + output) is never a judge's output.
  if (isRow(whole)) return { rows: [whole] };
  return { single: whole, rows: [] };
}

export function createReplayJudge(config: JudgeConfig, path: string): Judge {
  const { single, rows } = readRows(path);
  return {
    provider: 'replay',
    model: config.model,
    baseline: false,
    async call(req: JudgeRequest): Promise<JudgeReply> {
      const row = rows.find(
        // An answer id written as a JSON number (12) is the id "12".
        (r) => (String(r.answer) === req.answerId || r.answer === req.answerHash) && (r.rubric === undefined || r.rubric === req.rubric.id),
      );
      const out = row ? row.output : single;
      if (out === undefined) throw new ProviderCallError('fatal', `replay ${path}: no recorded output for answer ${req.answerId ?? req.answerHash}`);
      return { structured: out, text: JSON.stringify(out), stop: 'complete', stopDetail: 'replay', usage: { ...ZERO_USAGE } };
    },
  };
}
