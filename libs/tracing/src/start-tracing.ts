import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import type { IncomingMessage } from 'node:http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { samplerFrom } from './task-sampler';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-node';

let provider: NodeTracerProvider | undefined;

/** Scrapes and probes are not part of any task's story: tracing them would bury the traces that are. */
const untracedPaths = new Set(['/metrics', '/health', '/health/live', '/health/ready']);

/**
 * Starts OpenTelemetry tracing for a service: before anything else is loaded, so that the http and
 * pg modules are instrumented (pg only with TRACE_QUERIES=on). Configured by the standard OTEL_*
 * variables: OTEL_TRACES_EXPORTER=otlp (the default; OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf or
 * http/json) | zipkin | console | none, OTEL_SDK_DISABLED=true to turn it off, TRACE_SHARE (see
 * TaskSampler) or the SDK's own sampler's, the batch processor's, the exporters' and OTEL_RESOURCE_ATTRIBUTES, which the SDK reads itself.
 * Only traces: metrics and logs have their own channels (GET /metrics, JSON lines on stdout). The
 * trace SDK alone, rather than the all-in-one NodeSDK, which loads every exporter of every signal
 * (some 300 modules, ~12 MB of each service's memory) whatever is configured.
 */
export function startTracing(serviceName: string): void {
  if (provider || process.env.OTEL_SDK_DISABLED === 'true') return;
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || serviceName }));
  // Given only when ours: an undefined sampler could stand in for the one the SDK reads from OTEL_TRACES_SAMPLER.
  const sampler = samplerFrom(process.env);
  provider = new NodeTracerProvider({ resource, spanProcessors: spanProcessorsFrom(process.env), ...(sampler ? { sampler } : {}) });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => untracedPaths.has((request.url ?? '').split('?')[0]),
        // Outgoing calls are traced only inside a task's trace (a model attempt, a webhook attempt).
        requireParentforOutgoingSpans: true,
        // A webhook's URL is the user's (its path may hold a token of theirs) and must not outlive an
        // erasure in the trace store: its attempt is the worker's own span, which names no URL.
        ignoreOutgoingRequestHook: (request) => webhookRequest(request.headers),
      }),
      // fetch (the model client): likewise only inside a trace.
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // Queries only when asked for: a task makes some 80 of them, three spans in four, and
      // tracing them cost a fifth of the throughput (bench:throughput: 8.8 against 11.1 tasks/s).
      // Only inside a span even then: the relay's and workers' polling would drown the rest.
      ...(process.env.TRACE_QUERIES === 'on' ? [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })] : []),
    ],
  });
}

/** A Standard Webhooks delivery carries a `webhook-id` header; nothing else we send does. */
function webhookRequest(headers: unknown): boolean {
  if (!headers || typeof headers !== 'object') return false;
  return Object.keys(headers).some((name) => name.toLowerCase() === 'webhook-id');
}

/** Sends the spans still buffered; called when the service shuts down. */
export async function stopTracing(): Promise<void> {
  const running = provider;
  provider = undefined;
  await running?.shutdown().catch(letGo('spans not yet exported are dropped at shutdown', new Logger('tracing'), { level: 'warn' }));
}

/** What OTEL_TRACES_EXPORTER asks for; a name it does not know stops the service with that name. */
export function spanProcessorsFrom(env: NodeJS.ProcessEnv): SpanProcessor[] {
  const names = (env.OTEL_TRACES_EXPORTER || 'otlp')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.includes('none')) return [];
  return names.map((name) => (name === 'console' ? new SimpleSpanProcessor(new ConsoleSpanExporter()) : new BatchSpanProcessor(exporterNamed(name, env))));
}

/** An exporter's module is loaded only when it is chosen: OTLP's brings protobuf with it. */
function exporterNamed(name: string, env: NodeJS.ProcessEnv): SpanExporter {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, see above */
  if (name === 'zipkin') return new (require('@opentelemetry/exporter-zipkin') as typeof import('@opentelemetry/exporter-zipkin')).ZipkinExporter();
  if (name !== 'otlp') throw new Error(`OTEL_TRACES_EXPORTER: "${name}" is not one of otlp, zipkin, console, none`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'http/protobuf') {
    return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  }
  if (protocol === 'http/json') {
    return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported (http/protobuf or http/json)`);
}
