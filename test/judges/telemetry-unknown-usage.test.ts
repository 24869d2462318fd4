import { afterEach, expect, it } from 'vitest';
import { setTracer } from '../../src/judges/telemetry.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness } from './harness.ts';

/**
 * The `chat <model>` span of a call sent and never answered (docs/data-safety.md, "Calls of unknown cost"):
 * it carried no usage attributes and nothing saying why, so a trace backend summing gen_ai.usage.* over a run
 * read a plain total that silently left the call out, where a reply without usage is marked
 * assay.usage_unknown = no_usage. A timed-out call's span now says assay.usage_unknown = timeout.
 */
let fake: FakeProvider | undefined;
afterEach(async () => {
  setTracer(null);
  await fake?.close();
  fake = undefined;
});

it('a timed-out call is an error span marked assay.usage_unknown = timeout; the answered retry has usage', async () => {
  fake = await startFakeProvider({ script: [{ kind: 'hang' }, { kind: 'verdicts', output: fullVerdicts() }] });
  const attrs: Array<Record<string, unknown>> = [];
  const tracer = {
    startActiveSpan(_name: string, opts: { attributes?: Record<string, unknown> }, fn: (span: unknown) => unknown) {
      const a: Record<string, unknown> = { ...(opts.attributes ?? {}) };
      attrs.push(a);
      const span = { setAttribute: (k: string, v: unknown) => void (a[k] = v), setAttributes: (o: Record<string, unknown>) => void Object.assign(a, o), setStatus() {}, end() {} };
      return fn(span);
    },
  };
  setTracer(tracer as never);
  const h = await harness('anthropic', fake, { max_attempts: 2, timeout_ms: 300 });
  const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
  expect(out.status).toBe('ok');
  expect(attrs).toHaveLength(2);
  expect(attrs.map((a) => [a['error.type'] ?? null, a['assay.usage_unknown'] ?? null, typeof a['gen_ai.usage.output_tokens']])).toEqual([
    ['retryable', 'timeout', 'undefined'],
    [null, null, 'number'],
  ]);
}, 60_000);
