import { namespaceOf, partnerTopicFor, partnerTopicOf } from '@app/catalogue';
import type { FaultEntry, PublishOp } from './history';
import type { Evidence, InvariantResult, PlacedEvent } from './checked-evidence';
import { campaignPartners } from './outside-systems';

const followTheUser = new Set(['TaskCompleted', 'TaskFailed']);
/** After a partner is added back, tasks sees it at its next look (PARTNER_DISCOVERY_INTERVAL, 10 s): twice that, and some. */
const rediscoveryMs = 30_000;

/** The windows in which a partner was removed (its start to its end and rediscovery), by partner. */
function removals(evidence: Evidence): Array<{ partner: string; from: number; to: number }> {
  const faults = evidence.history.filter((h): h is FaultEntry => h.kind === 'fault' && h.fault === 'remove-partner');
  return faults
    .filter((f) => f.phase === 'start')
    .map((start) => ({
      partner: start.target,
      from: start.at,
      to: (faults.find((f) => f.phase === 'end' && f.id === start.id)?.at ?? Number.POSITIVE_INFINITY) + rediscoveryMs,
    }));
}
const refusals = new Set(['TaskRejected', 'TaskCancelRejected']);

/**
 * The partners kept apart through the run's faults:
 * - PARTNER_OUTCOMES_COMPLETE: every outcome of a partner's user's task, and every refusal of a
 *   request a partner wrote, is on that partner's own topic too, with the same eventId — but those
 *   that happened while the partner was removed (until tasks saw it back), which get no copy;
 * - PARTNER_OUTCOMES_APART: a partner's topics hold only its own users' outcomes and the refusals of
 *   its own requests;
 * - FORGED_REQUESTS_REFUSED: a sender's request for a user outside its namespace (another
 *   partner's, an HTTP user's) was refused as NOT_YOUR_USER, and no task was accepted for it.
 * `firstOf` is every task event once, at its first offset, on the platform's own topics.
 */
export function partnerInvariants(evidence: Evidence, firstOf: PlacedEvent[]): InvariantResult[] {
  const results: InvariantResult[] = [];
  const report = (invariant: string, meaning: string, examples: string[]) =>
    results.push({ invariant, meaning, violations: examples.length, examples: examples.slice(0, 5) });
  const partners = new Set<string>(campaignPartners);
  const copies = evidence.partnerCopies ?? [];
  const copied = new Set(copies.map((c) => `${c.topic} ${c.event.eventId}`));
  const removed = removals(evidence);
  const whileRemoved = (partner: string, placed: PlacedEvent) => {
    const at = new Date(placed.event.occurredAt).getTime();
    return removed.some((r) => r.partner === partner && at >= r.from && at <= r.to);
  };
  // Which partner wrote each request it was acknowledged for
  const writers = new Map<string, string>();
  for (const p of evidence.history.filter((h): h is PublishOp => h.kind === 'publish' && h.acknowledged && !!h.eventId)) {
    const writer = p.topic ? partnerTopicOf(p.topic)?.partner : undefined;
    if (writer) writers.set(p.eventId!, writer);
  }
  const ownerOf = (placed: PlacedEvent): string | undefined => {
    const { event } = placed;
    if (refusals.has(event.eventType)) return event.causationId ? writers.get(event.causationId) : undefined;
    const namespace = followTheUser.has(event.eventType) ? namespaceOf(event.userId) : undefined;
    return namespace && partners.has(namespace) ? namespace : undefined;
  };

  report(
    'PARTNER_OUTCOMES_COMPLETE',
    "every outcome of a partner's user, and every refusal of a partner's request, is on that partner's own topic too",
    firstOf.flatMap((placed) => {
      const owner = ownerOf(placed);
      const topic = owner && partnerTopicFor(owner, placed.event.eventType);
      return topic && !copied.has(`${topic} ${placed.event.eventId}`) && !whileRemoved(owner, placed)
        ? [`${placed.event.eventType} ${placed.event.eventId} of task ${placed.event.taskId} is not on ${topic}`]
        : [];
    }),
  );
  report(
    'PARTNER_OUTCOMES_APART',
    "a partner's topics hold only its own users' outcomes and the refusals of its own requests",
    copies.flatMap(({ topic, event }) => {
      const partner = partnerTopicOf(topic)?.partner;
      const own = refusals.has(event.eventType) ? !!event.causationId && writers.get(event.causationId) === partner : namespaceOf(event.userId) === partner;
      return own ? [] : [`${topic} holds ${event.eventType} ${event.eventId} of ${event.userId}`];
    }),
  );
  const forged = evidence.history.filter((h): h is PublishOp => h.kind === 'publish' && h.acknowledged && h.forged === true);
  const byTask = new Map<string, PlacedEvent[]>();
  for (const placed of firstOf) byTask.set(placed.event.taskId, [...(byTask.get(placed.event.taskId) ?? []), placed]);
  report(
    'FORGED_REQUESTS_REFUSED',
    "a sender's request for a user outside its namespace is refused as NOT_YOUR_USER, and nothing is accepted for it",
    forged.flatMap((p) => {
      const events = (byTask.get(p.taskId) ?? []).map((placed) => placed.event);
      const refused = events.some((e) => e.eventType === 'TaskRejected' && (e as { reason?: string }).reason === 'NOT_YOUR_USER');
      const accepted = events.some((e) => e.eventType === 'TaskAccepted');
      return refused && !accepted ? [] : [`forged request ${p.taskId} for ${p.user}: ${events.map((e) => e.eventType).join(', ') || 'no answer'}`];
    }),
  );
  return results;
}
