// `larq work --otel` and `--metrics`: the OpenTelemetry SDK started from the standard OTEL_* variables,
// and a Prometheus endpoint, so a user gets traces and metrics out of the worker without writing code.
import type { MetricsServer } from '../telemetry/serveMetrics';
import { parseListenAddress, serveMetrics } from '../telemetry/serveMetrics';
import { JobMetrics } from '../telemetry/JobMetrics';
import { JobTracing } from '../telemetry/JobTracing';
import type { QueueTelemetry } from '../RedisQueueOptions';
import { loadDriver } from '../sql/loadDriver';

/** What the flags and environment ask for. */
export interface TelemetryRequest {
  /** Start the OpenTelemetry SDK (--otel, or an OTLP endpoint or exporter named in the environment). */
  otel: boolean;
  /** Where to serve /metrics, from --metrics=[HOST:]PORT. */
  metrics: { host: string | undefined; port: number } | null;
}

// The OTEL_* variables that mean "send my traces somewhere": with one of them set, larq work starts the SDK.
const OTEL_EXPORT_VARIABLES = [
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
];

/** Read --otel, --metrics and the OTEL_* variables. */
export function telemetryRequest(
  flags: { otel?: boolean; metrics?: string },
  env: NodeJS.ProcessEnv,
): TelemetryRequest {
  const fromEnv = OTEL_EXPORT_VARIABLES.some((name) => (env[name] ?? '') !== '' && env[name] !== 'none');
  return {
    otel: flags.otel === true || (fromEnv && env.OTEL_SDK_DISABLED !== 'true'),
    metrics: flags.metrics === undefined ? null : parseListenAddress(flags.metrics),
  };
}

/** The SDK and the metrics server once started, and what the queue is given. */
export interface StartedTelemetry {
  telemetry: QueueTelemetry | null;
  /** Serve the metrics (after the worker exists, so its first scrape sees it). */
  serve(): Promise<MetricsServer | null>;
  /** Flush and stop the SDK. */
  shutdown(): Promise<void>;
}

/** Start the SDK (before any span is made) and build the queue's telemetry. */
export function startTelemetry(request: TelemetryRequest, env: NodeJS.ProcessEnv): StartedTelemetry {
  let sdk: { start(): void; shutdown(): Promise<void> } | null = null;
  if (request.otel) {
    const { NodeSDK } = loadDriver<{
      NodeSDK: new (config: { serviceName?: string }) => { start(): void; shutdown(): Promise<void> };
    }>('@opentelemetry/sdk-node', 'larq work --otel');
    sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? 'larq-worker' });
    sdk.start();
  }
  const wantsMetrics = request.metrics !== null || request.otel;
  const metrics = wantsMetrics
    ? new JobMetrics({ prometheus: request.metrics !== null, meter: request.otel ? true : undefined })
    : undefined;
  const tracing = request.otel ? new JobTracing() : undefined;
  return {
    telemetry: tracing || metrics ? { tracing, metrics } : null,
    serve: async () =>
      request.metrics !== null && metrics?.registry ? serveMetrics(metrics.registry, request.metrics) : null,
    shutdown: async () => {
      await sdk?.shutdown();
    },
  };
}
