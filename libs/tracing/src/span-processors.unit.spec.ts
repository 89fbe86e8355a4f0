import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { spanProcessorsFrom } from './start-tracing';

describe('the span processors OTEL_TRACES_EXPORTER asks for', () => {
  it('exports over OTLP, in batches, when nothing is said', () => {
    const processors = spanProcessorsFrom({});
    expect(processors).toHaveLength(1);
    expect(processors[0]).toBeInstanceOf(BatchSpanProcessor);
  });

  it('gives one processor per exporter named, the console one span by span', () => {
    const processors = spanProcessorsFrom({ OTEL_TRACES_EXPORTER: 'zipkin, console' });
    expect(processors.map((p) => p.constructor)).toEqual([BatchSpanProcessor, SimpleSpanProcessor]);
  });

  it('gives none for none', () => {
    expect(spanProcessorsFrom({ OTEL_TRACES_EXPORTER: 'none' })).toEqual([]);
  });

  it('refuses an exporter or an OTLP protocol it does not ship, by name', () => {
    expect(() => spanProcessorsFrom({ OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow('OTEL_TRACES_EXPORTER: "jaeger" is not one of otlp, zipkin, console, none');
    expect(() => spanProcessorsFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported');
  });
});
