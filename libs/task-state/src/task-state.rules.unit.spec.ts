import { randomUUID } from 'node:crypto';
import { DomainEvent, EventBody, EventType, newEvent } from '@app/events';
import { attemptsOf, decideCancel, evolve, noFacts, outcomeOf, reasonOf, stateOf, TaskState, terminalStates } from './task-state.rules';

const origin = { taskId: randomUUID(), userId: 'u1', correlationId: randomUUID(), causationId: null };
const e = <T extends EventType>(type: T, body: EventBody<T>) => newEvent(type, body, origin, 'test') as DomainEvent;

const requested = e('TaskAccepted', { idempotencyKey: 'k', reportType: 'summary', input: '{}' });
const debited = e('QuotaDebited', { amount: 1, balanceAfter: 9 });
const rejected = e('QuotaRejected', { reason: 'INSUFFICIENT_QUOTA', balance: 0 });
const timedOut = e('TaskTimedOut', { reason: 'no outcome within 1200 s' });
const refusedLate = e('QuotaRejected', { reason: 'TIMED_OUT', balance: 10 });
const started = (attempt: number) => e('GenerationStarted', { attempt });
const retry = (attempt: number) => e('GenerationRetryScheduled', { attempt, nextAttemptAt: 0, errorCode: 'MODEL_UNAVAILABLE', reason: 'model answered 503' });
const succeeded = (attempt: number) => e('GenerationSucceeded', { attempt, reportRef: 'reports/r.md', reportBytes: 1024 });
const failed = (attempts: number, errorClass: string) =>
  e('GenerationFailed', {
    attempts,
    errorClass,
    errorCode: errorClass === 'PERMANENT' ? 'MODEL_REJECTED' : 'MODEL_UNAVAILABLE',
    reason: 'the model refused the input',
  });
const refunded = e('QuotaRefunded', { amount: 1, balanceAfter: 10 });
const notified = e('NotificationSent', { outcome: 'TaskCompleted', channel: 'inbox' });
const cancelled = e('TaskCancelled', { cancelledBy: 'admin-7' });
// Quota's answers to the cancel: a refund of its debit, or a refusal of a task it had not debited.
const refusedCancelled = e('QuotaRejected', { reason: 'CANCELLED', balance: 10 });

const fold = (events: DomainEvent[]) => events.reduce(evolve, noFacts);

function* permutations<T>(items: T[]): Generator<T[]> {
  if (items.length <= 1) return yield items;
  for (let i = 0; i < items.length; i++) {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i], ...rest];
  }
}

const scenarios: Array<{ name: string; events: DomainEvent[]; state: TaskState; attempts: number }> = [
  { name: 'success', events: [requested, debited, started(1), succeeded(1), notified], state: 'SUCCESS', attempts: 1 },
  { name: 'transient then success', events: [requested, debited, started(1), retry(1), started(2), succeeded(2)], state: 'SUCCESS', attempts: 2 },
  {
    name: 'retries exhausted',
    events: [requested, debited, started(1), retry(1), started(2), retry(2), failed(2, 'RETRIES_EXHAUSTED'), refunded],
    state: 'COMPENSATED',
    attempts: 2,
  },
  { name: 'permanent failure', events: [requested, debited, started(1), failed(1, 'PERMANENT'), refunded], state: 'COMPENSATED', attempts: 1 },
  { name: 'quota rejected', events: [requested, rejected], state: 'FAILED', attempts: 0 },
  { name: 'timed out before quota decided', events: [requested, timedOut, refusedLate], state: 'FAILED', attempts: 0 },
  // still in flight
  { name: 'waiting for a retry', events: [requested, debited, started(1), retry(1)], state: 'RETRYING', attempts: 1 },
  { name: 'second attempt running', events: [requested, debited, started(1), retry(1), started(2)], state: 'RUNNING', attempts: 2 },
  { name: 'refund owed', events: [requested, debited, started(1), failed(1, 'PERMANENT')], state: 'COMPENSATING', attempts: 1 },
];

describe('the task state machine', () => {
  it('walks each scenario in its natural order through the states of the source', () => {
    const walk = (events: DomainEvent[]) => events.map((_, i) => stateOf(fold(events.slice(0, i + 1))));
    expect(walk(scenarios[1].events)).toEqual(['QUEUED', 'QUEUED', 'RUNNING', 'RETRYING', 'RUNNING', 'SUCCESS']);
    expect(walk(scenarios[3].events)).toEqual(['QUEUED', 'QUEUED', 'RUNNING', 'COMPENSATING', 'COMPENSATED']);
    expect(walk(scenarios[4].events)).toEqual(['QUEUED', 'FAILED']);
  });

  it.each(scenarios)('ends "$name" in the same state for every order and duplication of its events', ({ events, state, attempts }) => {
    let orders = 0;
    for (const order of permutations(events)) {
      // every order, then the same order with every event delivered again, backwards
      for (const delivered of [order, [...order, ...[...order].reverse()]]) {
        let facts = noFacts;
        const states: TaskState[] = [];
        for (const event of delivered) {
          facts = evolve(facts, event);
          states.push(stateOf(facts));
        }
        // Plain comparisons, not expect(), in the hot loop: 80 000 orders per scenario.
        const firstTerminal = states.findIndex((s) => terminalStates.has(s));
        const absorbed = firstTerminal < 0 || states.slice(firstTerminal).every((s) => s === state);
        if (stateOf(facts) !== state || attemptsOf(facts) !== attempts || !absorbed) {
          throw new Error(`order ${delivered.map((d) => d.eventType).join(' > ')} ended ${stateOf(facts)} after ${states.join(' > ')}`);
        }
        orders++;
      }
    }
    expect(orders).toBe(2 * [...permutations(events)].length);
  });

  it.each(scenarios)('"$name": a cancel taken at any point of any order ends CANCELLED, unless an outcome was recorded first', ({ events, state }) => {
    let cancels = 0;
    let refusals = 0;
    for (const order of permutations(events)) {
      for (let at = 0; at <= order.length; at++) {
        const before = fold(order.slice(0, at));
        if (decideCancel(before) === 'already-ended') {
          // The outcome stands: the cancel is refused and publishes nothing that moves the task.
          if (!terminalStates.has(stateOf(before)) || stateOf(fold(order)) !== state) throw new Error(`refused a cancel at ${stateOf(before)}`);
          refusals++;
          continue;
        }
        const answers = at === 0 ? [refusedCancelled] : [refunded];
        const delivered = [...order.slice(0, at), cancelled, ...order.slice(at), ...answers, ...[...order].reverse()];
        let facts = noFacts;
        const states = delivered.map((event) => stateOf((facts = evolve(facts, event))));
        const outcome = outcomeOf(facts);
        if (states.slice(at).some((s) => s !== 'CANCELLED') || outcome?.eventType !== 'TaskFailed' || outcome.errorCode !== 'CANCELLED') {
          throw new Error(
            `cancel after ${order
              .slice(0, at)
              .map((d) => d.eventType)
              .join(' > ')} went ${states.join(' > ')}`,
          );
        }
        cancels++;
      }
    }
    expect(cancels + refusals).toBe([...permutations(events)].length * (events.length + 1));
    // Every scenario can be cancelled before its first event; only those that end can refuse one.
    expect(cancels).toBeGreaterThan(0);
    expect(refusals > 0).toBe(terminalStates.has(state));
  });

  it('owes, for a cancelled task, a TaskFailed that says who cancelled it and that nothing is charged', () => {
    expect(outcomeOf(fold([requested, debited, started(1), cancelled, succeeded(1)]))).toEqual({
      eventType: 'TaskFailed',
      reason: 'cancelled by admin-7',
      errorCode: 'CANCELLED',
      compensated: true,
    });
    expect(decideCancel(fold([requested, debited, started(1), failed(1, 'PERMANENT')]))).toBe('cancel'); // refund still owed: not ended
    expect(decideCancel(fold([requested, debited, started(1), succeeded(1)]))).toBe('already-ended');
    expect(decideCancel(fold([requested, cancelled]))).toBe('already-ended');
  });

  it('owes exactly the terminal event that matches the outcome', () => {
    expect(outcomeOf(fold(scenarios[0].events))).toEqual({ eventType: 'TaskCompleted', reportRef: 'reports/r.md' });
    expect(outcomeOf(fold(scenarios[3].events))).toEqual({
      eventType: 'TaskFailed',
      reason: 'the model refused the input',
      errorCode: 'MODEL_REJECTED',
      compensated: true,
    });
    expect(outcomeOf(fold(scenarios[4].events))).toEqual({
      eventType: 'TaskFailed',
      reason: 'not enough quota (balance 0)',
      errorCode: 'INSUFFICIENT_QUOTA',
      compensated: false,
    });
    expect(outcomeOf(fold([requested, timedOut, refusedLate]))).toEqual({
      eventType: 'TaskFailed',
      reason: 'no outcome within the task deadline',
      errorCode: 'TIMED_OUT',
      compensated: false,
    });
    expect(outcomeOf(fold([requested, debited, started(1), failed(1, 'PERMANENT')]))).toBeNull(); // refund still owed
  });

  it('gives the user-facing reason of a failure, and none while the task is healthy', () => {
    expect(reasonOf(fold(scenarios[2].events))).toBe('the model refused the input');
    expect(reasonOf(fold(scenarios[0].events))).toBeNull();
  });
});
