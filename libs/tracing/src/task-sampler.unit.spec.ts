import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-node';
import { eventTypes } from '@app/events';
import { samplerFrom, TaskSampler, troubleEventTypes } from './task-sampler';

const newTraceId = () => randomBytes(16).toString('hex');
const kept = (sampler: TaskSampler, attributes: Record<string, unknown> = {}, traceId = newTraceId(), context = ROOT_CONTEXT) =>
  sampler.shouldSample(context, traceId, 'process', SpanKind.CONSUMER, attributes as never).decision === SamplingDecision.RECORD_AND_SAMPLED;
const under = (flags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, { traceId: newTraceId(), spanId: randomBytes(8).toString('hex'), traceFlags: flags, isRemote: true });

describe('the task sampler', () => {
  it('keeps a share of the tasks that went well, the same choice for a trace in every service', () => {
    const sampler = new TaskSampler(0.25);
    const traceIds = Array.from({ length: 4000 }, newTraceId);
    const keptIds = traceIds.filter((id) => kept(sampler, { eventType: 'TaskAccepted' }, id));
    expect(keptIds.length / traceIds.length).toBeGreaterThan(0.2);
    expect(keptIds.length / traceIds.length).toBeLessThan(0.3);
    // Another service deciding on the same trace ids, for another of the task's spans, decides alike
    const elsewhere = new TaskSampler(0.25);
    expect(traceIds.filter((id) => kept(elsewhere, { eventType: 'GenerationSucceeded' }, id, under(TraceFlags.NONE)))).toEqual(keptIds);
  });

  it('keeps every span that tells of trouble, whatever the share, and what follows it', () => {
    const sampler = new TaskSampler(0);
    expect(kept(sampler, { eventType: 'TaskCompleted' })).toBe(false);
    for (const eventType of troubleEventTypes) expect(kept(sampler, { eventType }, newTraceId(), under(TraceFlags.NONE))).toBe(true);
    expect(kept(sampler, { attempt: 2 })).toBe(true);
    expect(kept(sampler, { attempt: 1 })).toBe(false);
    expect(kept(sampler, { keep: true })).toBe(true);
    expect(kept(sampler, { eventType: 'TaskCompleted' }, newTraceId(), under(TraceFlags.SAMPLED))).toBe(true);
  });

  it('names only events that exist', () => {
    for (const type of troubleEventTypes) expect(eventTypes).toContain(type);
  });

  it('is ours with TRACE_SHARE (a tenth unless said), the SDK’s when OTEL_TRACES_SAMPLER names one, and refuses a share that is none', () => {
    expect((samplerFrom({}) as TaskSampler).share).toBe(0.1);
    expect((samplerFrom({ TRACE_SHARE: '1' }) as TaskSampler).share).toBe(1);
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', TRACE_SHARE: '1' })).toBeUndefined();
    for (const share of ['', 'all', '1.5', '-0.1']) expect(() => samplerFrom({ TRACE_SHARE: share })).toThrow(`TRACE_SHARE: "${share}" is not a share`);
  });
});
