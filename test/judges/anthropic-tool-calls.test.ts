import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeProvider, type RecordedCall, startFakeProvider } from '../fake-provider/server.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness } from './harness.ts';

/**
 * Anthropic replies with more than one call of the forced verdict tool (tool_choice forces the tool, not
 * one call of it): two different verdict sets are the judge saying two things, never one of them picked.
 */
type Out = { items: Array<{ id: string; verdict: string; evidence: string }>; claims: unknown[] };
const full = () => fullVerdicts() as Out;
const barnIncorrect = (): Out => {
  const v = full();
  v.items[0]!.verdict = 'incorrect';
  return v;
};
const toolUse = (id: string, input: unknown) => ({ type: 'tool_use', id, name: 'record_verdicts', input });

let fake: FakeProvider;
let contentFor: (call: RecordedCall, n: number) => unknown[];
let n = 0;
beforeAll(async () => {
  fake = await startFakeProvider({
    routes: {
      'POST /v1/messages': (call) => ({
        status: 200,
        body: { id: `msg_${call.index}`, type: 'message', role: 'assistant', model: call.body.model, content: contentFor(call, n++), stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } },
      }),
    },
  });
});
afterAll(async () => {
  await fake.close();
});
const grade = async (content: (call: RecordedCall, n: number) => unknown[]) => {
  contentFor = content;
  n = 0;
  const before = fake.calls.length;
  const h = await harness('anthropic', fake);
  const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
  return { out, calls: fake.calls.slice(before) };
};

it('two record_verdicts calls with different verdicts: parse_failure after a re-ask, not the first call graded', async () => {
  const { out, calls } = await grade((_c, i) => [toolUse(`toolu_${i}a`, full()), toolUse(`toolu_${i}b`, barnIncorrect())]);
  expect(out.status).toBe('parse_failure');
  expect(out.reason).toBe('invalid output after one re-ask: the reply called record_verdicts 2 times with different verdicts; call it once');
  expect(out.output).toBeNull();
  expect(calls).toHaveLength(2);
  // The re-ask answers the tool call it replays (the API wants a tool_result for each tool_use sent back).
  const turns = calls[1]!.body.messages.slice(1);
  expect(turns.map((t: { role: string }) => t.role)).toEqual(['assistant', 'user']);
  expect(turns[0].content).toEqual([toolUse('toolu_0a', full())]);
  expect(turns[1].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_0a', is_error: true });
  expect(turns[1].content[0].content).toContain('called record_verdicts 2 times with different verdicts');
});

it('the re-ask answered with one call is graded from it', async () => {
  const { out, calls } = await grade((_c, i) => (i === 0 ? [toolUse('t1', full()), toolUse('t2', barnIncorrect())] : [toolUse('t3', barnIncorrect())]));
  expect(out.status).toBe('ok');
  expect(calls).toHaveLength(2);
  expect(out.output).toEqual(barnIncorrect());
});

it('the same verdicts sent twice are one answer: ok on the first call', async () => {
  const { out, calls } = await grade(() => [toolUse('t1', barnIncorrect()), { type: 'text', text: 'Recorded.' }, toolUse('t2', barnIncorrect())]);
  expect(out.status).toBe('ok');
  expect(calls).toHaveLength(1);
  expect(out.output).toEqual(barnIncorrect());
});
