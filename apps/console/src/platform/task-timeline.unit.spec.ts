import { taskTimeline } from './task-timeline';

describe('taskTimeline', () => {
  it('merges what the four services say into one timeline in time order', () => {
    const rows = taskTimeline({
      task: {
        taskId: 't',
        userId: 'u',
        state: 'COMPENSATED',
        createdAt: '2026-01-01T00:00:00.000Z',
        timeline: [
          { eventId: 'e1', eventType: 'TaskAccepted', occurredAt: '2026-01-01T00:00:00.000Z', producer: 'tasks', data: { reportType: 'summary' } },
          { eventId: 'e2', eventType: 'TaskFailed', occurredAt: '2026-01-01T00:00:05.000Z', producer: 'tasks', data: { compensated: true } },
        ],
      },
      generation: {
        status: 'failed',
        nextAttemptAt: null,
        attempts: [
          {
            attempt: 1,
            startedAt: '2026-01-01T00:00:01.000Z',
            finishedAt: '2026-01-01T00:00:02.000Z',
            outcome: 'failed',
            errorCode: 'MODEL_REJECTED',
            errorMessage: 'no',
          },
        ],
      },
      ledger: [
        { kind: 'refund', amount: 1, at: '2026-01-01T00:00:03.000Z', eventId: null },
        { kind: 'debit', amount: 1, at: '2026-01-01T00:00:00.500Z', eventId: null },
      ],
      notifications: [
        {
          outcome: 'TaskFailed',
          channel: 'webhook',
          status: 'pending',
          deliveryAttempts: 1,
          lastError: 'HTTP 500',
          createdAt: '2026-01-01T00:00:06.000Z',
          deliveredAt: null,
          nextDeliveryAt: '2026-01-01T00:00:08.000Z',
        },
      ],
    });
    expect(rows.map((r) => `${r.source}: ${r.what}`)).toEqual([
      'tasks: TaskAccepted',
      'quota: ledger: debit',
      'generation: attempt 1 started',
      'generation: attempt 1 failed',
      'quota: ledger: refund',
      'tasks: TaskFailed',
      'notification: notification (TaskFailed) by webhook',
      'notification: webhook attempt failed',
      'notification: next webhook attempt due',
    ]);
    expect(rows[3].detail).toBe('MODEL_REJECTED: no');
  });
});
