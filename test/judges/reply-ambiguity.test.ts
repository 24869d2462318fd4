import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReply } from '../../src/judges/parse.ts';
import { ZERO_USAGE } from '../../src/judges/types.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness, PROVIDERS } from './harness.ts';

/**
 * Replies that parse but say two things at once (docs/judges.md#statuses-and-retries): the grade is
 * either exactly what the judge said or not ok with a reason. Before these checks each case below was
 * stored as an ok grade whose verdicts the parser had picked for the judge.
 */
type Out = { items: Array<{ id: string; verdict: string; evidence: string }>; claims: Array<{ text: string; verdict: string }> };
const full = () => fullVerdicts() as Out;
/** The fixture with barn (the first item, weight 2 of 21.5, fixture verdict correct) marked incorrect. */
const barnIncorrect = (): Out => {
  const v = full();
  v.items[0]!.verdict = 'incorrect';
  return v;
};

describe.each(PROVIDERS)('ambiguous text replies through the %s SDK', (provider) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });
  const grade = async () => {
    const before = fake.calls.length;
    const h = await harness(provider, fake);
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    return { out, calls: fake.calls.slice(before), ledger: h.ledger };
  };
  const reaskText = (calls: Array<{ body: unknown }>) => JSON.stringify(calls[1]!.body);

  it('two different verdict objects in one reply: parse_failure naming them, not the first one graded', async () => {
    fake.setScript([{ kind: 'text', text: `Draft:\n${JSON.stringify(full())}\nOn reflection the barn is wrong:\n${JSON.stringify(barnIncorrect())}` }]);
    const { out, calls, ledger } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toBe('invalid output after one re-ask: the reply holds 2 different JSON objects; give exactly one');
    expect(out.output).toBeNull();
    expect(calls).toHaveLength(2);
    expect(reaskText(calls)).toContain('the reply holds 2 different JSON objects');
    expect(ledger.entries.map((e) => e.status)).toEqual(['invalid_output', 'invalid_output']);
  });

  it('the same verdict object given twice is one verdict: ok, as the judge said', async () => {
    const json = JSON.stringify(barnIncorrect());
    fake.setScript([{ kind: 'text', text: `${json}\n\nAgain, for clarity:\n${JSON.stringify(barnIncorrect(), null, 2)}` }]);
    const { out, calls } = await grade();
    expect(out.status).toBe('ok');
    expect(calls).toHaveLength(1);
    expect(out.output).toEqual(barnIncorrect());
  });

  it('an item with its verdict key twice: parse_failure naming the key, not the last value graded', async () => {
    const json = JSON.stringify(full());
    const twice = json.replace('{"id":"barn","verdict":"correct"', '{"id":"barn","verdict":"correct","verdict":"incorrect"');
    expect(twice).not.toBe(json);
    fake.setScript([{ kind: 'text', text: twice }]);
    const { out, calls } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toBe("invalid output after one re-ask: key 'verdict' given twice in items.0");
    expect(out.output).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it('the items array given twice (an escaped spelling of the key too): parse_failure, not the second list graded', async () => {
    const second = JSON.stringify(barnIncorrect().items);
    fake.setScript([{ kind: 'text', text: `${JSON.stringify(full()).slice(0, -1)},"\\u0069tems":${second}}` }]);
    const { out } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toBe("invalid output after one re-ask: key 'items' given twice at the top level");
  });

  it('a repaired reply is checked too: duplicate keys after jsonrepair mends single quotes', async () => {
    const json = JSON.stringify(full()).replace('{"id":"fence","verdict":"correct"', "{'id':'fence','verdict':'correct','evidence':'','verdict':'missing'").replace(/('verdict':'missing'),"evidence":""/, '$1');
    fake.setScript([{ kind: 'text', text: json }]);
    const { out } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toBe("invalid output after one re-ask: key 'verdict' given twice in items.5");
  });

  it('a reply cut off after a whole claim, stop reason complete: parse_failure, not graded on the claims that arrived', async () => {
    const json = JSON.stringify(full());
    // Up to the end of the 13th of 14 claims: jsonrepair would close the array and object around 13.
    const cut = json.slice(0, json.lastIndexOf('},{') + 1);
    fake.setScript([{ kind: 'text', text: cut }]);
    const { out, calls } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toBe('invalid output after one re-ask: the reply ends inside a JSON object that is never closed (cut off?)');
    expect(out.output).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it('claims elided with an ellipsis or a comment: parse_failure, not graded on the claims written out', async () => {
    const json = JSON.stringify(full());
    const at = json.indexOf('"claims":[') + '"claims":['.length;
    // jsonrepair deletes `...` and comments without a trace: `"claims":[...]` became [] (correctness 0,
    // ok), `[{first claim}, ...]` one claim of 14, `/* 12 more */` likewise.
    for (const text of [
      `${json.slice(0, at)}...]}`,
      `${json.slice(0, json.indexOf('},{', at) + 1)}, ...]}`,
      `${json.slice(0, json.indexOf('},{', at) + 1)}, /* 13 more claims */]}`,
      `${json.slice(0, json.indexOf('},{', at) + 1)},\n// and 13 more\n]}`,
    ]) {
      fake.setScript([{ kind: 'text', text }]);
      const { out, calls } = await grade();
      expect(out.status, text).toBe('parse_failure');
      expect(out.reason).toMatch(/^invalid output after one re-ask: the reply's JSON (has an ellipsis|has a comment) where jsonrepair would drop it/);
      expect(out.output).toBeNull();
      expect(calls).toHaveLength(2);
    }
  });

  it('an ellipsis inside a string is text, not an elision: ok as the judge said', async () => {
    const v = full();
    v.claims[0]!.text = 'The barn... is red // really';
    fake.setScript([{ kind: 'text', text: JSON.stringify(v).replace('"claims":[', "'claims':[") }]);
    const { out, calls } = await grade();
    expect(out.status).toBe('ok');
    expect(calls).toHaveLength(1);
    expect(out.output).toEqual(v);
  });

  it('a closed object with prose after it is still read (the open-object rule is about the end of the reply only)', async () => {
    fake.setScript([{ kind: 'text', text: `${JSON.stringify(barnIncorrect())}\nThat is all {` }]);
    const { out: open } = await grade();
    expect(open.status).toBe('parse_failure');
    fake.setScript([{ kind: 'text', text: `${JSON.stringify(barnIncorrect())}\nThat is all.` }]);
    const { out } = await grade();
    expect(out.status).toBe('ok');
    expect(out.output).toEqual(barnIncorrect());
  });

  it('a verdict object followed by a corrected one after a re-ask is graded from the corrected reply', async () => {
    fake.setScript([{ kind: 'text', text: `${JSON.stringify(full())} ${JSON.stringify(barnIncorrect())}` }, { kind: 'text', text: JSON.stringify(barnIncorrect()) }]);
    const { out, calls } = await grade();
    expect(out.status).toBe('ok');
    expect(calls).toHaveLength(2);
    expect((out.output as Out).items[0]).toEqual({ id: 'barn', verdict: 'incorrect', evidence: '' });
  });
});

describe('a structured field given as JSON text (a replay row recorded as a string)', () => {
  const reply = (structured: string) => ({ structured, text: structured, stop: 'complete' as const, usage: ZERO_USAGE });
  it('is read as the one JSON value it holds', () => {
    expect(parseReply(reply(JSON.stringify(barnIncorrect())), [])).toEqual({ ok: true, value: barnIncorrect() });
  });
  it('is refused when cut off inside the object or with a key twice', () => {
    const json = JSON.stringify(full());
    expect(parseReply(reply(json.slice(0, json.lastIndexOf('},{') + 1)), [])).toEqual({ ok: false, error: 'structured output ends inside a JSON object that is never closed (cut off?)' });
    expect(parseReply(reply(json.replace('"claims":', '"items":[],"claims":')), [])).toEqual({ ok: false, error: "key 'items' given twice at the top level" });
    expect(parseReply(reply(`${json.slice(0, json.indexOf('"claims":[') + 10)}...]}`), [])).toEqual({ ok: false, error: "the reply's JSON has an ellipsis where jsonrepair would drop it (elements left out?): write every element out" });
  });
});
