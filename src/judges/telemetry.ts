import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { JudgeConfig } from './config.ts';
import type { JudgeReply } from './types.ts';

/**
 * Spans of judge calls and grading work, following the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/). Off unless src/telemetry.ts set a
 * tracer (OTEL_EXPORTER_OTLP_ENDPOINT): then every call is a span; off, the call runs as it is, with no
 * OpenTelemetry code loaded (the import above is of types only).
 */

let tracer: Tracer | null = null;

/** Set by src/telemetry.ts when tracing starts; null stops it. */
export function setTracer(t: Tracer | null): void {
  tracer = t;
}

// @opentelemetry/api enums by value, so this file loads none of it: SpanKind.CLIENT = 2, SpanStatusCode.ERROR = 2.
const CLIENT = 2;
const INTERNAL = 0;
const ERROR = 2;

/** The provider name as the conventions spell it (`gen_ai.provider.name`). */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { anthropic: 'anthropic', openai: 'openai', 'openai-compatible': 'openai' };

function ended<T>(span: Span, p: Promise<T>, after: (span: Span, v: T) => void): Promise<T> {
  return p.then(
    (v) => {
      after(span, v);
      span.end();
      return v;
    },
    (e: unknown) => {
      span.setAttribute('error.type', (e as { kind?: string })?.kind ?? (e as Error)?.name ?? 'error');
      // A call that may have reached the provider with no reply read (a timeout, a lost connection) has no
      // usage attributes: say why, as a reply without usage does, so no sum over spans reads as a whole.
      const unknown = (e as { usageUnknown?: unknown })?.usageUnknown;
      if (typeof unknown === 'string') span.setAttribute('assay.usage_unknown', unknown);
      span.setStatus({ code: ERROR, message: (e as Error)?.message ?? String(e) });
      span.end();
      throw e;
    },
  );
}

/** One provider request: `chat <model>` with model, tokens and the stop; a failed call is an error span. */
export function tracedJudgeCall(cfg: Pick<JudgeConfig, 'id' | 'provider' | 'model' | 'params'>, call: () => Promise<JudgeReply>): Promise<JudgeReply> {
  if (!tracer) return call();
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': PROVIDER_NAMES[cfg.provider] ?? cfg.provider,
    'gen_ai.request.model': cfg.model,
    'gen_ai.request.max_tokens': cfg.params.max_tokens,
    'gen_ai.request.temperature': cfg.params.temperature,
    'assay.judge.id': cfg.id,
  };
  return tracer.startActiveSpan(`chat ${cfg.model}`, { kind: CLIENT, attributes }, (span) =>
    ended(span, call(), (s, reply) => {
      const u = reply.usage;
      s.setAttributes({
        // The conventions' input_tokens counts every input token, cached ones included (the ledger's
        // `input` is the uncached part only); the cache reads and writes are parts of it. A reply without
        // usage figures has no usage attributes (not zeros) and says so.
        ...(u
          ? {
              'gen_ai.usage.input_tokens': u.input + u.cacheRead + u.cacheWrite,
              'gen_ai.usage.cache_read.input_tokens': u.cacheRead,
              'gen_ai.usage.cache_creation.input_tokens': u.cacheWrite,
              'gen_ai.usage.output_tokens': u.output,
            }
          : { 'assay.usage_unknown': 'no_usage' }),
        'gen_ai.response.finish_reasons': [reply.stopDetail ?? reply.stop],
        'assay.stop': reply.stop,
      });
      if (reply.stop !== 'complete') s.setStatus({ code: ERROR, message: `stop: ${reply.stop}` });
    }),
  );
}

/** A piece of grading work (a run, one answer's grade) as the parent of the calls it makes. */
export function tracedWork<T>(name: string, attributes: Attributes, work: () => Promise<T>, after?: (v: T) => Attributes): Promise<T> {
  if (!tracer) return work();
  return tracer.startActiveSpan(name, { kind: INTERNAL, attributes }, (span) => ended(span, work(), (s, v) => (after ? s.setAttributes(after(v)) : undefined)));
}
