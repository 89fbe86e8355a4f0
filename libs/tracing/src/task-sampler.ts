import { Attributes, Context, isSpanContextValid, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { Sampler, SamplingDecision, SamplingResult, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';

/**
 * The events that tell of a task that did not simply succeed: failed, refused, retried, cancelled,
 * timed out (a task too slow), refunded. A span about one of them is always kept.
 */
export const troubleEventTypes: ReadonlySet<string> = new Set([
  'TaskRejected',
  'TaskFailed',
  'TaskTimedOut',
  'TaskCancelRequested',
  'TaskCancelled',
  'TaskCancelRejected',
  'QuotaRejected',
  'QuotaRefunded',
  'GenerationRetryScheduled',
  'GenerationFailed',
]);

/** A span's fact that asks for it to be kept whatever the share: a delivery made alone after a failure, a re-drive. */
export const keepSpan = 'keep';

/**
 * Keeps every span of a trace whose task went wrong from the first sign of it on, and whole traces
 * of a share of the others. A span is kept when its parent was; when it is about a trouble event
 * (its `eventType` fact), a second attempt (`attempt` > 1) or asks to be (`keep`); otherwise by its
 * trace id, against `share`. A task's trace id is the same in every service (a message carries it,
 * or it is derived from the correlation id), so every service makes the same choice for it, and a
 * task kept by its share is kept whole. What a task did before its trouble is in the trace only
 * when its share kept it.
 */
export class TaskSampler implements Sampler {
  private readonly byTraceId: TraceIdRatioBasedSampler;

  constructor(readonly share: number) {
    this.byTraceId = new TraceIdRatioBasedSampler(share);
  }

  shouldSample(context: Context, traceId: string, _name: string, _kind: SpanKind, attributes: Attributes): SamplingResult {
    const parent = trace.getSpanContext(context);
    const parentKept = parent !== undefined && isSpanContextValid(parent) && (parent.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
    if (parentKept || tellsOfTrouble(attributes)) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.byTraceId.shouldSample(context, traceId);
  }

  toString(): string {
    return `TaskSampler{share=${this.share}}`;
  }
}

function tellsOfTrouble(attributes: Attributes): boolean {
  return (
    attributes[keepSpan] === true || troubleEventTypes.has(String(attributes.eventType)) || (typeof attributes.attempt === 'number' && attributes.attempt > 1)
  );
}

/**
 * The sampler a service traces with: the SDK's own when OTEL_TRACES_SAMPLER names one (it reads it
 * itself), otherwise a TaskSampler keeping TRACE_SHARE of the tasks that went well (0.1 unless said).
 */
export function samplerFrom(env: NodeJS.ProcessEnv): Sampler | undefined {
  if (env.OTEL_TRACES_SAMPLER) return undefined;
  const share = Number(env.TRACE_SHARE ?? '0.1');
  if (env.TRACE_SHARE?.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1) {
    throw new Error(`TRACE_SHARE: "${env.TRACE_SHARE}" is not a share between 0 and 1`);
  }
  return new TaskSampler(share);
}
