import { randomUUID } from 'node:crypto';
import { DomainEvent, EventBody, EventType, newEvent } from '@app/events';
import { audit } from './audit-invariants';

function flow(userId = 'u1') {
  const origin = { taskId: randomUUID(), userId, correlationId: randomUUID(), causationId: null };
  let clock = 0;
  const e = <T extends EventType>(type: T, body: EventBody<T>) => ({ ...newEvent(type, body, origin, 'test'), occurredAt: ++clock }) as DomainEvent;
  return {
    taskId: origin.taskId,
    requested: () => e('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: '{}' }),
    debited: () => e('QuotaDebited', { amount: 1, balanceAfter: 9 }),
    refunded: () => e('QuotaRefunded', { amount: 1, balanceAfter: 10 }),
    succeeded: () => e('GenerationSucceeded', { attempt: 1, reportRef: 'r', reportBytes: 1024 }),
    failed: () => e('GenerationFailed', { attempts: 1, errorClass: 'PERMANENT', errorCode: 'MODEL_REJECTED', reason: 'no' }),
    completed: () => e('TaskCompleted', { reportRef: 'r' }),
    taskFailed: () => e('TaskFailed', { reason: 'no', errorCode: 'MODEL_REJECTED', compensated: true }),
    notified: (outcome: string) => e('NotificationSent', { outcome, channel: 'inbox' }),
    accepted: () => e('TaskAccepted', { idempotencyKey: 'k', reportType: 'summary', input: '{}' }),
    cancelled: () => e('TaskCancelled', { cancelledBy: userId }),
    cancelFailed: () => e('TaskFailed', { reason: `cancelled by ${userId}`, errorCode: 'CANCELLED', compensated: true }),
  };
}

describe('the audit of what was published', () => {
  it('finds nothing wrong in healthy flows, and ignores copies of one event', () => {
    const ok = flow();
    const compensated = flow();
    const pending = flow();
    const requested = ok.requested();
    const events = [
      requested,
      requested, // a redelivered copy, same eventId
      ok.debited(),
      ok.succeeded(),
      ok.completed(),
      ok.notified('TaskCompleted'),
      compensated.requested(),
      compensated.debited(),
      compensated.failed(),
      compensated.refunded(),
      compensated.taskFailed(),
      compensated.notified('TaskFailed'),
      pending.requested(),
      pending.debited(),
    ];
    const report = audit(events, 1000);
    expect(report.violations).toEqual([]);
    expect(report).toMatchObject({ events: 14, duplicates: 1, tasks: 3 });
    expect(report.inFlight).toEqual([{ taskId: pending.taskId, ageMs: 1000 - 1 }]);
  });

  it('names the task and the events of each broken promise', () => {
    const twice = flow('u2');
    const refundOnly = flow('u3');
    const noRefund = flow('u4');
    const [d1, d2, c1, c2] = [twice.debited(), twice.debited(), twice.completed(), twice.completed()];
    const stray = refundOnly.refunded();
    const [n1, n2] = [twice.notified('TaskCompleted'), twice.notified('TaskCompleted')];
    const report = audit([
      twice.requested(),
      d1,
      d2,
      c1,
      c2,
      n1,
      n2,
      refundOnly.requested(),
      stray,
      noRefund.requested(),
      noRefund.debited(),
      noRefund.failed(),
      noRefund.taskFailed(),
    ]);
    const found = report.violations.map((v) => [v.invariant, v.subject]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['ONE_TERMINAL_OUTCOME', twice.taskId],
        ['ONE_DEBIT_PER_TASK', twice.taskId],
        ['ONE_NOTIFICATION_PER_OUTCOME', twice.taskId],
        ['NO_REFUND_WITHOUT_DEBIT', refundOnly.taskId],
        ['REFUND_AFTER_FAILED_GENERATION', noRefund.taskId],
        ['USER_LEDGER_BALANCES', 'u4'],
      ]),
    );
    expect(report.violations.find((v) => v.invariant === 'ONE_DEBIT_PER_TASK')?.eventIds).toEqual([d1.eventId, d2.eventId]);
    expect(report.violations.find((v) => v.invariant === 'NO_REFUND_WITHOUT_DEBIT')?.eventIds).toEqual([stray.eventId]);
  });

  it('flags a task with no outcome past the deadline as stuck, and not one still within it', () => {
    const stuck = flow('u5');
    const young = flow('u6');
    const events = [stuck.requested(), stuck.debited()];
    const youngRequest = { ...young.requested(), occurredAt: 10_000 };
    const report = audit([...events, youngRequest], 10_500, 5_000);
    expect(report.violations).toEqual([expect.objectContaining({ invariant: 'NO_TASK_STUCK_PAST_DEADLINE', subject: stuck.taskId })]);
    expect(report.inFlight.map((t) => t.taskId).sort()).toEqual([stuck.taskId, young.taskId].sort());
  });

  it('flags a task both completed and refunded', () => {
    const both = flow('u7');
    const [succeeded, refunded] = [both.succeeded(), both.refunded()];
    const report = audit([both.requested(), both.debited(), succeeded, both.completed(), refunded], 100);
    expect(report.violations).toContainEqual(expect.objectContaining({ invariant: 'NO_REFUND_OF_COMPLETED_TASK', subject: both.taskId }));
  });

  it('holds a cancelled task to no charge: refunded even after its generation succeeded, never completed', () => {
    const late = flow('u7'); // the model answered after the cancel: its success lost the race
    const charged = flow('u8');
    const healthy = [late.requested(), late.debited(), late.cancelled(), late.succeeded(), late.refunded(), late.cancelFailed(), late.notified('TaskFailed')];
    expect(audit(healthy, 1000).violations).toEqual([]);

    const report = audit([charged.requested(), charged.debited(), charged.cancelled(), charged.cancelFailed()], 1000);
    expect(report.violations.map((v) => [v.invariant, v.subject, v.message])).toEqual([
      ['CANCELLED_TASK_NOT_CHARGED', charged.taskId, 'cancelled task charged: 1 debits, 0 refunds'],
      ['USER_LEDGER_BALANCES', 'u8', 'debits (1) − refunds (0) ≠ completed tasks (0)'],
    ]);
  });

  it('takes the TaskAccepted of an outside request as its request once task-requested has forgotten it (bounded retention)', () => {
    const aged = flow('u9');
    const done = [aged.accepted(), aged.debited(), aged.succeeded(), aged.completed(), aged.notified('TaskCompleted')];
    expect(audit(done, 1000).violations).toEqual([]);
    const stuck = flow('u10');
    const report = audit([stuck.accepted(), stuck.debited()], 60_000, 10_000);
    expect(report.violations.map((v) => [v.invariant, v.subject])).toEqual([['NO_TASK_STUCK_PAST_DEADLINE', stuck.taskId]]);
  });

  it('leaves out a request forged with ids that are no uuids: the platform dead-lettered it, so it is no task', () => {
    const forged = flow('u11');
    const report = audit(
      [
        { ...forged.requested(), eventId: 'fetch failed' },
        { ...forged.requested(), taskId: 'ECONNREFUSED 127.0.0.1:5432' },
      ],
      60_000,
      10_000,
    );
    expect(report).toMatchObject({ events: 2, refused: 2, tasks: 0, violations: [] });
  });
});
