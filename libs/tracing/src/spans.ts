import { AsyncLocalStorage } from 'node:async_hooks';
import { context, isSpanContextValid, Link, propagation, ROOT_CONTEXT, Span, SpanContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

export { SpanKind };
export type { Span };

/** What a span says about the work it covers; the ids an operator searches by. */
export interface SpanFacts {
  taskId?: string;
  eventId?: string;
  eventType?: string;
  attempt?: number;
  [name: string]: string | number | boolean | undefined;
}

export interface SpanOptions {
  /** The W3C traceparent of the work this continues (a Kafka header, a stored row); none: the active context. */
  parent?: string;
  /** Traceparents of related work this span is linked to, not a child of (an outsider's, which it does not join). */
  links?: string[];
  kind?: SpanKind;
  facts?: SpanFacts;
}

const tracer = () => trace.getTracer('task-platform');

/** The facts of the spans the current work runs in, for the logs (tracing on or off). */
const factsInScope = new AsyncLocalStorage<SpanFacts>();

/** taskId, eventId… of the work being done now, and its traceId when traced: what a log line should carry. */
export function currentFacts(): SpanFacts {
  const traceId = trace.getSpanContext(context.active())?.traceId;
  return { ...factsInScope.getStore(), ...(traceId ? { traceId } : {}) };
}

function parentContext(parent: string | undefined) {
  return parent === undefined ? context.active() : propagation.extract(ROOT_CONTEXT, { traceparent: parent });
}

function linksOf(traceparents: string[] = []): Link[] {
  return traceparents
    .map((traceparent) => trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent })))
    .filter((span): span is SpanContext => span !== undefined && isSpanContextValid(span))
    .map((span) => ({ context: span }));
}

function withoutUndefined(facts: SpanFacts = {}): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined)) as Record<string, string | number | boolean>;
}

/**
 * Runs `work` in a new span, child of `parent` (or of the active span): the span is active inside,
 * so the queries, calls and outbox rows made there belong to it. A failure is recorded and rethrown.
 * Without a tracing SDK, the span is a no-op and costs next to nothing.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const facts = { ...factsInScope.getStore(), ...withoutUndefined(options.facts) };
  return factsInScope.run(facts, () => runInSpan(name, options, work));
}

function runInSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: withoutUndefined(options.facts), links: linksOf(options.links) },
    parentContext(options.parent),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** A span the caller ends itself: for work that is not one function call (a message in a batch). */
export function openSpan(name: string, options: SpanOptions): Span {
  return tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: withoutUndefined(options.facts), links: linksOf(options.links) },
    parentContext(options.parent),
  );
}

/** Runs `work` with an open span active and its facts in scope: what it logs carries the span's ids. */
export function inOpenSpan<T>(span: Span, facts: SpanFacts, work: () => T): T {
  return factsInScope.run({ ...factsInScope.getStore(), ...withoutUndefined(facts) }, () => context.with(trace.setSpan(context.active(), span), work));
}

/** The traceparent of `span`, or of the active span; undefined when nothing is being traced. */
export function traceparentOf(span?: Span): string | undefined {
  const carrier: { traceparent?: string } = {};
  const ctx = span ? trace.setSpan(context.active(), span) : context.active();
  if (!trace.getSpanContext(ctx)) return undefined;
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
}
