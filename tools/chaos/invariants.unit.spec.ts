import { randomUUID } from 'node:crypto';
import { DomainEvent, EventBody, EventType, newEvent, topicFor } from '@app/events';
import type { HistoryEntry } from './history';
import type { Hostility } from './hostile-requests';
import { checkInvariants, Evidence, PlacedEvent } from './invariants';

/** A small, healthy run: one task by POST, completed and notified by webhook; then each promise broken on purpose. */
describe('the campaign checker', () => {
  const user = 'u1';
  const taskId = randomUUID();
  let clock = 1_000;
  const offsets = new Map<string, number>();
  const origin = { taskId, userId: user, correlationId: randomUUID(), causationId: null as string | null };
  const make = <T extends EventType>(type: T, body: EventBody<T>, cause?: DomainEvent): PlacedEvent => {
    const event = { ...newEvent(type, body, { ...origin, causationId: cause?.eventId ?? null }, 'test'), occurredAt: clock++ } as DomainEvent;
    const topic = topicFor(type);
    const offset = offsets.get(topic) ?? 0;
    offsets.set(topic, offset + 1);
    return { event, topic, partition: 0, offset };
  };
  const accepted = make('TaskAccepted', { idempotencyKey: 'k1', reportType: 'summary', input: '{}' });
  const debited = make('QuotaDebited', { amount: 1, balanceAfter: 24 }, accepted.event);
  const succeeded = make('GenerationSucceeded', { attempt: 1, reportRef: 'r', reportBytes: 1024 }, debited.event);
  const completed = make('TaskCompleted', { reportRef: 'r' }, succeeded.event);
  const notified = make('NotificationSent', { outcome: 'TaskCompleted', channel: 'webhook' }, completed.event);
  const history: HistoryEntry[] = [
    { kind: 'webhook', at: 1, user, status: 200 },
    { kind: 'submit', at: 2, user, key: 'k1', bodyHash: 'h', behaviour: 'success', status: 202, taskId },
    { kind: 'submit', at: 3, user, key: 'k1', repeat: 'resend', bodyHash: 'h', behaviour: 'success', status: 202, taskId },
    { kind: 'delivery', at: 4, user, webhookId: completed.event.eventId, taskId, outcome: 'task.completed', verified: true, answered: 500 },
    { kind: 'delivery', at: 5, user, webhookId: completed.event.eventId, taskId, outcome: 'task.completed', verified: true, answered: 204 },
    { kind: 'effect', at: 6, id: 1, fault: 'partition-broker', seen: 'node 2: 1 out of the in-sync replicas of 9 of 27 partitions, leads 0', afterMs: 9000 },
    { kind: 'effect', at: 7, id: 2, fault: 'kill-leader', seen: null, cutShort: true },
  ];
  const healthy: Evidence = {
    history,
    events: [accepted, debited, succeeded, completed, notified, { ...debited, offset: 7 }],
    undecodable: 0,
    deadLetters: [{ topic: 'quota.dlq', key: 'k', errorCode: 'DECODE_FAILED', errorMessage: 'not Confluent-framed' }],
    outbox: [{ service: 'quota', unpublished: 0, parked: 0 }],
    acknowledged: [
      { by: 'quota relay', eventId: debited.event.eventId, topic: debited.topic, partition: 0, offset: debited.offset },
      { by: 'tasks relay', eventId: completed.event.eventId, topic: completed.topic, partition: null, offset: null },
    ],
    balances: [{ user, balance: 24 }],
    granted: 25,
  };
  const violated = (evidence: Evidence) =>
    Object.fromEntries(
      checkInvariants(evidence)
        .filter((r) => r.violations > 0)
        .map((r) => [r.invariant, r.violations]),
    );

  it('finds nothing wrong in a healthy run (a redelivered copy and a retried webhook included)', () => {
    expect(violated(healthy)).toEqual({});
  });

  it('holds each hostile outside request to its own answer: a dead letter of tasks under its key, or INPUT_TOO_LARGE', () => {
    const publish = (hostile: Hostility, key: string): HistoryEntry => ({
      kind: 'publish',
      at: 8,
      user,
      key: 'k9',
      taskId: key,
      behaviour: 'success',
      acknowledged: true,
      hostile,
    });
    const [lettered, unanswered, tooLarge, wrongType, cut, garbage] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const evidence: Evidence = {
      ...healthy,
      history: [
        ...history,
        publish('outage-event-id', lettered),
        publish('outage-event-id', unanswered),
        publish('oversized', tooLarge),
        publish('wrong-type', wrongType),
        publish('truncated-avro', cut),
        publish('near-limit-garbage', garbage),
      ],
      // the wrong-type value and the cut one; the garbage too, had the checker read it
      undecodable: 2,
      deadLetters: [
        { topic: 'tasks.dlq', key: cut, errorCode: 'DECODE_FAILED', errorMessage: 'truncated buffer' },
        { topic: 'tasks.dlq', key: lettered, errorCode: 'INVALID_EVENT', errorMessage: 'eventId must be a UUID' },
        { topic: 'tasks.dlq', key: wrongType, errorCode: 'TOPIC_MISMATCH', errorMessage: 'a TaskCompleted on the topic of TaskRequested' },
      ],
    };
    // The unanswered one, the garbage no dead letter answered, and the oversized one that no TaskRejected answered (a request with no outcome, too); what was written as no request is not counted undecodable
    expect(violated(evidence)).toEqual({ OUTSIDE_REQUESTS_ANSWERED: 3, EVERY_ACCEPTED_TASK_ENDS: 1 });
    // And an undecodable value beyond those written so is
    expect(violated({ ...evidence, undecodable: 4 })).toMatchObject({ EVENTS_DECODE: 1 });
  });

  it('counts an accepted task with no outcome, and a second task under one key', () => {
    const other = randomUUID();
    const extra: HistoryEntry = { kind: 'submit', at: 6, user, key: 'k1', repeat: 'resend', bodyHash: 'h', behaviour: 'success', status: 202, taskId: other };
    expect(violated({ ...healthy, history: [...history, extra] })).toEqual({ EVERY_ACCEPTED_TASK_ENDS: 1, ONE_TASK_PER_KEY: 1 });
  });

  it('counts a key reused with another body that started a task', () => {
    const reuse: HistoryEntry = {
      kind: 'submit',
      at: 6,
      user,
      key: 'k1',
      repeat: 'reuse',
      bodyHash: 'x',
      behaviour: 'success',
      status: 202,
      taskId: randomUUID(),
    };
    expect(violated({ ...healthy, history: [...history, reuse] })).toMatchObject({ KEY_REUSE_STARTS_NOTHING: 1 });
  });

  it('counts a second debit, a refund of a completed task, and a balance that does not add up', () => {
    const second = make('QuotaDebited', { amount: 1, balanceAfter: 23 }, accepted.event);
    const refund = make('QuotaRefunded', { amount: 1, balanceAfter: 24 }, succeeded.event);
    expect(violated({ ...healthy, events: [...healthy.events, second, refund], balances: [{ user, balance: 26 }] })).toMatchObject({
      ONE_DEBIT_PER_TASK: 1,
      NO_REFUND_OF_COMPLETED_TASK: 1,
      ONE_EFFECT_PER_EVENT: 1,
      BALANCE_WITHIN_GRANT: 1,
    });
  });

  it('counts events out of order on a topic, an unsigned or missing webhook, an outbox backlog and a transient dead letter', () => {
    const early = { ...make('GenerationStarted', { attempt: 2 }, debited.event) };
    const late = { ...make('GenerationStarted', { attempt: 1 }, debited.event), offset: early.offset + 1 };
    late.event = { ...late.event, occurredAt: early.event.occurredAt - 1 };
    const forged: HistoryEntry = { kind: 'delivery', at: 7, user, webhookId: 'forged', verified: false, answered: 400 };
    expect(
      violated({
        ...healthy,
        events: [...healthy.events, early, late],
        history: [...history.filter((h) => h.kind !== 'delivery'), forged],
        outbox: [{ service: 'generation', unpublished: 3, parked: 0 }],
        deadLetters: [{ topic: 'tasks.dlq', key: 'k', errorCode: 'HANDLER_FAILED', errorMessage: 'deadlock' }],
      }),
    ).toEqual({ PER_TASK_ORDER: 1, EVERY_OUTCOME_NOTIFIED: 1, SIGNATURES_HOLD: 1, OUTBOX_DRAINED: 1, DEAD_LETTERS_ARE_PERMANENT: 1 });
  });

  it('counts an acknowledged event missing from its topic, a record not at its acknowledged offset, and a cluster fault never seen', () => {
    const lost = { by: 'outside producer', eventId: randomUUID(), topic: topicFor('TaskRequested'), partition: 1, offset: 40 };
    const moved = { by: 'tasks relay', eventId: completed.event.eventId, topic: completed.topic, partition: 0, offset: completed.offset + 3 };
    const unseen: HistoryEntry = { kind: 'effect', at: 8, id: 3, fault: 'partition-broker', seen: null, lastError: 'no route' };
    expect(violated({ ...healthy, acknowledged: [...healthy.acknowledged, lost, moved], history: [...history, unseen] })).toEqual({
      ACKNOWLEDGED_EVENTS_KEPT: 1,
      NO_TRUNCATION_BEHIND_ACK: 2,
      FAULTS_TAKE_EFFECT: 1,
    });
  });

  it('counts a cancel answered 202 whose task completed, and one answered 409 whose task was cancelled after all', () => {
    const cancelledByMistake = make('TaskCancelled', { cancelledBy: user }, debited.event);
    const refused: HistoryEntry = { kind: 'cancel', at: 9, user, taskId, status: 409, state: 'SUCCESS' };
    const taken: HistoryEntry = { kind: 'cancel', at: 9, user, taskId, status: 202, state: 'CANCELLED' };
    expect(violated({ ...healthy, history: [...history, refused] })).toEqual({});
    expect(violated({ ...healthy, history: [...history, taken] })).toEqual({ CANCEL_ANSWERS_HOLD: 1 });
    // A cancel that went through although the task had completed: charged and cancelled at once.
    expect(violated({ ...healthy, history: [...history, refused], events: [...healthy.events, cancelledByMistake] })).toMatchObject({
      CANCEL_ANSWERS_HOLD: 1,
      CANCELLED_TASK_NOT_CHARGED: 1,
    });
  });

  it('counts an erasure that never ended, and a task from before it that still shows its input; leaves the user events out of the task checks', () => {
    const erasureId = randomUUID();
    const erasureOrigin = { taskId: erasureId, userId: 'idle', correlationId: erasureId, causationId: null };
    const requested = {
      event: newEvent('UserErasureRequested', { requestedBy: 'op' }, erasureOrigin, 'tasks'),
      topic: topicFor('UserErasureRequested'),
      partition: 0,
      offset: 0,
    };
    // Three services answer the same cause with the same type: not an effect repeated, as it would be for a task.
    const answers = ['quota', 'generation', 'notification'].map((service, i) => ({
      event: newEvent('UserDataErased', { service, erased: 0 }, { ...erasureOrigin, causationId: requested.event.eventId }, service),
      topic: topicFor('UserDataErased'),
      partition: 0,
      offset: i,
    }));
    const erased = (status: string, input: unknown): Evidence => ({
      ...healthy,
      events: [...healthy.events, requested, ...answers],
      erasures: [
        {
          user: 'idle',
          status,
          requestedAt: '2026-12-03T10:00:00.000Z',
          tasks: [
            { taskId: 'before', createdAt: '2026-12-03T09:59:00.000Z', input },
            { taskId: 'after', createdAt: '2026-12-03T10:01:00.000Z', input: { n: 1 } },
          ],
        },
      ],
    });
    expect(violated(erased('ERASED', '[erased]'))).toEqual({});
    expect(violated(erased('ERASING', '[erased]'))).toEqual({ ERASURES_COMPLETE: 1 });
    expect(violated(erased('ERASED', { n: 1 }))).toEqual({ ERASURES_COMPLETE: 1 });
  });
});
