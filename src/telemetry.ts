import { setTracer } from './judges/telemetry.ts';

/**
 * OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is
 * set: judge calls and grading work become spans (src/judges/telemetry.ts) sent over OTLP/HTTP (JSON).
 * The SDK is imported only then, so a process without the variable loads none of it. The exporter reads
 * the standard OTEL_* variables itself (headers, timeout); the service name defaults to `assay`.
 */

export interface TelemetryConfig {
  otlpEndpoint: string | undefined;
  otlpTracesEndpoint: string | undefined;
  serviceName: string | undefined;
}

/** Stops tracing and sends what is buffered (call before the process exits). */
export type StopTelemetry = () => Promise<void>;

const NOTHING: StopTelemetry = async () => {};
let running: { stop: StopTelemetry; users: number } | null = null;

export async function startTelemetry(config: TelemetryConfig): Promise<StopTelemetry> {
  if (!config.otlpEndpoint && !config.otlpTracesEndpoint) return NOTHING;
  // One provider per process, however many commands or servers start it.
  if (running) {
    running.users++;
    return release;
  }
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  // The exporter appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and uses a traces endpoint as given.
  const exporter = new OTLPTraceExporter(config.otlpTracesEndpoint ? { url: config.otlpTracesEndpoint } : {});
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName ?? 'assay' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  // Registers the AsyncLocalStorage context manager, so a call made inside a run's span is its child.
  provider.register();
  setTracer(provider.getTracer('assay'));
  running = {
    users: 1,
    stop: async () => {
      setTracer(null);
      await provider.shutdown();
    },
  };
  return release;
}

async function release(): Promise<void> {
  if (!running) return;
  if (--running.users > 0) return;
  const { stop } = running;
  running = null;
  await stop();
}
