import type { TaskStory } from './task-timeline';
import { taskWaterfall } from './task-waterfall';

const t0 = Date.parse('2026-12-06T10:00:00Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const event = (eventType: string, ms: number, producer = 'tasks') => ({ eventId: eventType, eventType, occurredAt: at(ms), producer, data: {} });
const attempt = (n: number, start: number, end: number | null, outcome: string | null) => ({
  attempt: n,
  startedAt: at(start),
  finishedAt: end === null ? null : at(end),
  outcome,
  errorCode: outcome === 'failed' ? 'MODEL_UNAVAILABLE' : null,
  errorMessage: null,
});

/** A task whose three attempts failed transiently, refunded, failed, and told to its webhook. */
const retriedAndRefunded: TaskStory = {
  task: {
    taskId: 't',
    userId: 'u',
    state: 'COMPENSATED',
    createdAt: at(0),
    timeline: [
      event('TaskAccepted', 0),
      event('QuotaDebited', 40, 'quota'),
      event('GenerationFailed', 900, 'generation'),
      event('QuotaRefunded', 950, 'quota'),
      event('TaskFailed', 990),
    ],
  },
  generation: {
    status: 'failed',
    nextAttemptAt: null,
    attempts: [attempt(2, 300, 400, 'failed'), attempt(1, 100, 200, 'failed'), attempt(3, 700, 880, 'failed')],
  },
  ledger: [
    { kind: 'debit', amount: 1, at: at(40), eventId: null },
    { kind: 'refund', amount: 1, at: at(950), eventId: null },
  ],
  notifications: [
    {
      outcome: 'failed',
      channel: 'webhook',
      status: 'delivered',
      deliveryAttempts: 2,
      lastError: null,
      createdAt: at(1000),
      deliveredAt: at(1500),
      nextDeliveryAt: null,
    },
  ],
};

describe('a task as a waterfall', () => {
  it('shows each attempt, each retry wait, the refund and the outcome in order, work apart from waiting', () => {
    const bars = taskWaterfall(retriedAndRefunded);
    expect(bars.map((b) => [b.kind, b.label, b.from - t0, b.to - t0])).toEqual([
      ['wait', 'to quota: outbox and topic', 0, 40],
      ['wait', 'to generation: topic and a free slot', 40, 100],
      ['work', 'attempt 1: failed (MODEL_UNAVAILABLE)', 100, 200],
      ['wait', 'retry 1: backoff', 200, 300],
      ['work', 'attempt 2: failed (MODEL_UNAVAILABLE)', 300, 400],
      ['wait', 'retry 2: backoff', 400, 700],
      ['work', 'attempt 3: failed (MODEL_UNAVAILABLE)', 700, 880],
      ['wait', 'refund: to quota', 900, 950],
      ['wait', 'outcome: to tasks', 950, 990],
      ['wait', 'notification (failed): to notification', 990, 1000],
      ['work', 'webhook: 2 attempt(s)', 1000, 1500],
    ]);
  });

  it('ends a step still under way now, and waits for a retry that is due', () => {
    const running: TaskStory = {
      ...retriedAndRefunded,
      task: { ...retriedAndRefunded.task, state: 'RETRYING', timeline: retriedAndRefunded.task.timeline.slice(0, 2) },
      generation: { status: 'retrying', nextAttemptAt: at(600), attempts: [attempt(1, 100, 200, 'failed'), attempt(2, 300, null, null)] },
      ledger: [],
      notifications: [],
    };
    expect(taskWaterfall(running, t0 + 450).map((b) => [b.label, b.to - t0])).toEqual([
      ['to quota: outbox and topic', 40],
      ['to generation: topic and a free slot', 100],
      ['attempt 1: failed (MODEL_UNAVAILABLE)', 200],
      ['retry 1: backoff', 300],
      ['attempt 2', 450],
    ]);
  });
});
