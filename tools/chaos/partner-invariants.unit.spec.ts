import { randomUUID } from 'node:crypto';
import { DomainEvent, EventBody, EventType, newEvent, topicFor } from '@app/events';
import { partnerTopicFor } from '@app/catalogue';
import type { HistoryEntry } from './history';
import type { Evidence, PlacedEvent } from './invariants';
import { partnerInvariants } from './partner-invariants';

/** A partner's task completed and copied to it, and a forged request refused; then each promise broken on purpose. */
describe('the campaign checker: partners kept apart', () => {
  const place = (event: DomainEvent, topic = topicFor(event.eventType)): PlacedEvent => ({ event, topic, partition: 0, offset: 0 });
  const of = <T extends EventType>(type: T, body: EventBody<T>, userId: string, taskId: string, causationId: string | null = null) =>
    newEvent(type, body, { taskId, userId, correlationId: randomUUID(), causationId }, 'test') as DomainEvent;
  const [own, forgedTask] = [randomUUID(), randomUUID()];
  const completed = of('TaskCompleted', { reportRef: 'r' }, 'alpha:u1', own);
  const forgedRequest = of('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: '{}' }, 'beta:u2', forgedTask);
  const refusal = of('TaskRejected', { reason: 'NOT_YOUR_USER', idempotencyKey: null }, 'beta:u2', forgedTask, forgedRequest.eventId);
  const history: HistoryEntry[] = [
    {
      kind: 'publish',
      at: 1,
      user: 'beta:u2',
      key: 'k',
      taskId: forgedTask,
      behaviour: 'success',
      acknowledged: true,
      forged: true,
      eventId: forgedRequest.eventId,
      topic: partnerTopicFor('alpha', 'TaskRequested'),
    },
  ];
  const firstOf = [place(completed), place(forgedRequest, partnerTopicFor('alpha', 'TaskRequested')), place(refusal)];
  const healthy: Evidence = {
    history,
    events: firstOf,
    partnerCopies: [place(completed, partnerTopicFor('alpha', 'TaskCompleted')), place(refusal, partnerTopicFor('alpha', 'TaskRejected'))],
    undecodable: 0,
    deadLetters: [],
    outbox: [],
    acknowledged: [],
    balances: [],
    granted: 0,
  };
  const violated = (evidence: Evidence, events = firstOf) =>
    Object.fromEntries(
      partnerInvariants(evidence, events)
        .filter((r) => r.violations > 0)
        .map((r) => [r.invariant, r.violations]),
    );

  it('finds nothing wrong in a run where each partner got its own and only its own', () => {
    expect(violated(healthy)).toEqual({});
  });

  it('leaves out an outcome missing while its partner was removed, and only then', () => {
    const missing = { ...healthy, partnerCopies: healthy.partnerCopies!.slice(1) };
    const at = new Date(completed.occurredAt).getTime();
    const removal = (from: number, to: number): HistoryEntry[] => [
      { kind: 'fault', at: from, phase: 'start', id: 7, fault: 'remove-partner', target: 'alpha' },
      { kind: 'fault', at: to, phase: 'end', id: 7, fault: 'remove-partner', target: 'alpha' },
    ];
    expect(violated({ ...missing, history: [...history, ...removal(at - 1000, at + 1000)] })).toEqual({});
    // Removed and back (and seen back) before it ended, or another partner removed: its copy is owed
    expect(violated({ ...missing, history: [...history, ...removal(at - 60_000, at - 40_000)] })).toEqual({ PARTNER_OUTCOMES_COMPLETE: 1 });
    const otherRemoved = removal(at - 1000, at + 1000).map((h) => ({ ...h, target: 'beta' }));
    expect(violated({ ...missing, history: [...history, ...otherRemoved] })).toEqual({ PARTNER_OUTCOMES_COMPLETE: 1 });
  });

  it("finds an outcome missing from its partner's topic, and one on another partner's", () => {
    const missing = { ...healthy, partnerCopies: healthy.partnerCopies!.slice(1) };
    expect(violated(missing)).toEqual({ PARTNER_OUTCOMES_COMPLETE: 1 });
    const leaked = { ...healthy, partnerCopies: [...healthy.partnerCopies!, place(completed, partnerTopicFor('beta', 'TaskCompleted'))] };
    expect(violated(leaked)).toEqual({ PARTNER_OUTCOMES_APART: 1 });
  });

  it('finds a forged request that was accepted, or answered otherwise', () => {
    const accepted = of('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, 'beta:u2', forgedTask, forgedRequest.eventId);
    expect(violated(healthy, [...firstOf, place(accepted)])).toEqual({ FORGED_REQUESTS_REFUSED: 1 });
    expect(violated({ ...healthy, partnerCopies: healthy.partnerCopies!.slice(0, 1) }, firstOf.slice(0, 2))).toEqual({ FORGED_REQUESTS_REFUSED: 1 });
  });
});
