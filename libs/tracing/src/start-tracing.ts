import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/** Scrapes and probes are not part of any task's story: tracing them would bury the traces that are. */
const untracedPaths = new Set(['/metrics', '/health', '/health/live', '/health/ready']);

/**
 * Starts OpenTelemetry for a service: before anything else is loaded, so that the http and pg
 * modules are instrumented (pg only with TRACE_QUERIES=on). Configured by the standard OTEL_*
 * variables (OTLP by default, OTEL_TRACES_EXPORTER=zipkin|console|none, OTEL_SDK_DISABLED=true to
 * turn it off). Metrics and logs have their own channels (GET /metrics, JSON lines on stdout), so
 * only traces are exported.
 */
export function startTracing(serviceName: string): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || serviceName,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => untracedPaths.has((request.url ?? '').split('?')[0]),
        // Outgoing calls are traced only inside a task's trace (a model attempt, a webhook attempt).
        requireParentforOutgoingSpans: true,
      }),
      // fetch (the model client): likewise only inside a trace.
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // Queries only when asked for: a task makes some 80 of them, three spans in four, and
      // tracing them cost a fifth of the throughput (bench:throughput: 8.8 against 11.1 tasks/s).
      // Only inside a span even then: the relay's and workers' polling would drown the rest.
      ...(process.env.TRACE_QUERIES === 'on' ? [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })] : []),
    ],
  });
  sdk.start();
}

/** Sends the spans still buffered; called when the service shuts down. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown().catch(() => undefined);
}
