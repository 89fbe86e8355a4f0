import { identityProblems, isTaskEvent, keyEventTypes, topicFor } from '@app/events';
import { errorCodes } from '@app/failures';
import { balanceMove, kindOfEvent } from '@app/quota-ledger';
import { audit } from '../audit/audit-invariants';
import type { CancelOp, DeliveryEntry, EffectEntry, PublishOp, SubmitOp } from './history';
import type { Evidence, InvariantResult, PlacedEvent } from './checked-evidence';
import { partnerInvariants } from './partner-invariants';
import { databaseInvariants } from './database-invariants';
import { firstOccurrences, groupBy, outOfOrder } from './placed-events';
import { notARequest } from './hostile-requests';

export type { Evidence, InvariantResult, PlacedEvent } from './checked-evidence';

const reactions = new Set(['QuotaDebited', 'QuotaRejected', 'QuotaRefunded', 'TaskAccepted', 'TaskRejected', 'TaskCompleted', 'TaskFailed']);
const ends = new Set(['TaskCompleted', 'TaskFailed', 'TaskRejected']);
const auditInvariants = {
  ONE_TERMINAL_OUTCOME: 'no task has two outcomes',
  ONE_DEBIT_PER_TASK: 'no task is debited twice',
  NO_REFUND_WITHOUT_DEBIT: 'no refund without a debit',
  REFUND_AFTER_FAILED_GENERATION: 'a task that failed after a debit is refunded exactly once',
  NO_REFUND_OF_COMPLETED_TASK: 'no task both completed and refunded',
  USER_LEDGER_BALANCES: 'per user, debits − refunds = completed tasks',
  ONE_NOTIFICATION_PER_OUTCOME: 'one NotificationSent per outcome',
  CANCELLED_TASK_NOT_CHARGED: 'a cancelled task is never charged (debits = refunds) and never completes',
} as const;

/** The compacted topics of keys (the campaign's topics have no prefix). */
const keyTopics = new Set<string>(keyEventTypes.map((type) => topicFor(type)));

/** What every group of invariants reads: the evidence, and each task's events (first copies only). */
interface Reading {
  evidence: Evidence;
  firstOf: PlacedEvent[];
  byTask: Map<string, PlacedEvent[]>;
  typesOf: (taskId: string) => Set<string>;
  /** What outside producers wrote and were acknowledged for. */
  outside: PublishOp[];
  report: (invariant: string, meaning: string, examples: string[]) => void;
}

/** Checks every promise over the evidence; each invariant reports its count of violations, zero included. */
export function checkInvariants(evidence: Evidence): InvariantResult[] {
  const results: InvariantResult[] = [];
  // Events about users (keys, erasures) belong to no task: the task invariants leave them out.
  // A request forged with ids that are no uuids was never taken in: its dead letter answers it (OUTSIDE_REQUESTS_ANSWERED).
  const firstOf = firstOccurrences(evidence.events.filter((p) => isTaskEvent(p.event) && identityProblems(p.event as never).length === 0));
  const byTask = groupBy(firstOf, (p) => p.event.taskId);
  const reading: Reading = {
    evidence,
    firstOf,
    byTask,
    typesOf: (taskId) => new Set((byTask.get(taskId) ?? []).map((p) => p.event.eventType)),
    outside: evidence.history.filter((h): h is PublishOp => h.kind === 'publish' && h.acknowledged),
    report: (invariant, meaning, examples) => results.push({ invariant, meaning, violations: examples.length, examples: examples.slice(0, 5) }),
  };
  for (const check of [requestsEnd, keysHold, auditedHistory, cancelsAndBalances, oneEffectInOrder, notifications, logKept, faultsAndErasures]) check(reading);
  return [...results, ...partnerInvariants(evidence, firstOf), ...databaseInvariants(evidence)];
}

/** Every request accepted, over HTTP or Kafka, ends; a hostile one ends alone. */
function requestsEnd({ evidence, byTask, typesOf, outside, report }: Reading): void {
  const submits = evidence.history.filter((h): h is SubmitOp => h.kind === 'submit');
  // An oversized request is a request like any other, only refused; the other hostile ones are refused at the door.
  const published = outside.filter((p) => p.hostile === undefined || p.hostile === 'oversized');
  const refusedAtTheDoor = outside.filter((p) => p.hostile !== undefined && p.hostile !== 'oversized');
  const accepted = [...new Set(submits.filter((s) => s.status >= 200 && s.status < 300 && s.taskId).map((s) => s.taskId!))];
  report('EVERY_ACCEPTED_TASK_ENDS', 'every task answered 2xx, and every request an outside producer wrote, ends (completed, failed or rejected)', [
    ...accepted.filter((t) => ![...typesOf(t)].some((type) => ends.has(type))).map((t) => `task ${t} (POST) has no outcome`),
    ...published.filter((p) => ![...typesOf(p.taskId)].some((type) => ends.has(type))).map((p) => `task ${p.taskId} (Kafka) has no outcome`),
  ]);

  const deadLettered = new Set(evidence.deadLetters.filter((d) => d.topic === 'tasks.dlq').map((d) => d.key));
  report('OUTSIDE_REQUESTS_ANSWERED', 'every hostile outside request ends alone: too large is rejected, anything malformed is dead-lettered by tasks', [
    ...outside
      .filter((p) => p.hostile === 'oversized' && !(byTask.get(p.taskId) ?? []).some((e) => (e.event as { reason?: string }).reason === 'INPUT_TOO_LARGE'))
      .map((p) => `oversized request ${p.taskId} was not rejected as INPUT_TOO_LARGE`),
    ...refusedAtTheDoor.filter((p) => !deadLettered.has(p.taskId)).map((p) => `${p.hostile} request under key ${p.taskId} has no dead letter`),
  ]);
}

/** Whichever of two bodies sent under one key arrives first owns it: the other must be refused. */
function keysHold({ evidence, report }: Reading): void {
  const submits = evidence.history.filter((h): h is SubmitOp => h.kind === 'submit');
  const perKey = groupBy(
    submits.filter((s) => s.status >= 200 && s.status < 300),
    (s) => `${s.user} ${s.key}`,
  );
  report(
    'ONE_TASK_PER_KEY',
    'one task per (user, Idempotency-Key)',
    [...perKey]
      .filter(([, list]) => new Set(list.map((s) => s.taskId)).size > 1)
      .map(([key, list]) => `${key}: ${[...new Set(list.map((s) => s.taskId))].join(', ')}`),
  );
  report(
    'KEY_REUSE_STARTS_NOTHING',
    'a key reused with another body is refused: only one body per key is ever accepted',
    [...perKey].filter(([, list]) => new Set(list.map((s) => s.bodyHash)).size > 1).map(([key, list]) => `${key}: ${list.length} bodies accepted`),
  );
}

/** The audit's invariants (npm run audit), over the same history. */
function auditedHistory({ firstOf, report }: Reading): void {
  const audited = audit(
    firstOf.map((p) => p.event),
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
  );
  for (const [invariant, meaning] of Object.entries(auditInvariants)) {
    report(
      invariant,
      meaning,
      audited.violations.filter((v) => v.invariant === invariant).map((v) => `${v.subject}: ${v.message}`),
    );
  }
}

/** A cancel's answer holds, and each balance is what its events say. */
function cancelsAndBalances({ evidence, firstOf, byTask, typesOf, report }: Reading): void {
  const cancels = evidence.history.filter((h): h is CancelOp => h.kind === 'cancel');
  const failedAs = (taskId: string) => (byTask.get(taskId) ?? []).find((p) => p.event.eventType === 'TaskFailed')?.event as { errorCode?: string } | undefined;
  report('CANCEL_ANSWERS_HOLD', 'a cancel answered 202 ends its task CANCELLED; one answered 409 with another outcome leaves that outcome standing', [
    ...cancels
      .filter((c) => c.status === 202 && !(typesOf(c.taskId).has('TaskCancelled') && failedAs(c.taskId)?.errorCode === 'CANCELLED'))
      .map((c) => `task ${c.taskId}: cancel answered 202, but the task did not end CANCELLED`),
    ...cancels
      .filter((c) => c.status === 409 && c.state !== undefined && c.state !== 'CANCELLED' && typesOf(c.taskId).has('TaskCancelled'))
      .map((c) => `task ${c.taskId}: cancel answered 409 (${c.state}), but the task was cancelled`),
  ]);

  // What quota's events say each balance moved by: one unit for each debit and refund.
  const expected = (user: string) =>
    firstOf.reduce((balance, { event }) => {
      const kind = event.userId === user ? kindOfEvent(event.eventType) : undefined;
      return balance + (kind ? balanceMove[kind] : 0);
    }, evidence.granted);
  report(
    'BALANCE_WITHIN_GRANT',
    'each balance is granted − debits + refunds, and within 0..granted',
    evidence.balances
      .filter((b) => b.balance < 0 || b.balance > evidence.granted || b.balance !== expected(b.user))
      .map((b) => `${b.user}: balance ${b.balance}, expected ${expected(b.user)}`),
  );
}

/** An event handled twice has one effect, and each topic keeps a task's order. */
function oneEffectInOrder({ firstOf, report }: Reading): void {
  const causes = groupBy(
    firstOf.filter((p) => reactions.has(p.event.eventType) && p.event.causationId),
    (p) => `${p.event.causationId} ${p.event.eventType}`,
  );
  report(
    'ONE_EFFECT_PER_EVENT',
    'an event handled twice (redelivered, or by two instances) has one effect',
    [...causes].filter(([, list]) => list.length > 1).map(([cause, list]) => `${cause} → ${list.length} distinct events`),
  );

  report('PER_TASK_ORDER', 'on every topic, a task’s events are in the order they occurred', outOfOrder(firstOf));
}

/** Every outcome reaches its user once, signed. */
function notifications({ evidence, firstOf, report }: Reading): void {
  const deliveries = evidence.history.filter((h): h is DeliveryEntry => h.kind === 'delivery');
  const webhookUsers = new Set(evidence.history.filter((h) => h.kind === 'webhook' && h.status === 200).map((h) => (h as { user: string }).user));
  const outcomes = firstOf.filter((p) => p.event.eventType === 'TaskCompleted' || p.event.eventType === 'TaskFailed');
  const notified = new Set(
    firstOf.filter((p) => p.event.eventType === 'NotificationSent').map((p) => `${p.event.taskId} ${(p.event as { outcome?: string }).outcome}`),
  );
  report(
    'EVERY_OUTCOME_NOTIFIED',
    'every outcome is notified; a webhook user receives it under one stable webhook-id, once after deduplication',
    outcomes.flatMap(({ event }) => {
      const problems: string[] = [];
      if (!notified.has(`${event.taskId} ${event.eventType}`)) problems.push(`${event.taskId} ${event.eventType} has no NotificationSent`);
      if (webhookUsers.has(event.userId)) {
        const received = deliveries.filter((d) => d.taskId === event.taskId && d.verified);
        const ids = new Set(received.map((d) => d.webhookId));
        if (!received.some((d) => d.answered < 300)) problems.push(`${event.taskId} was never accepted by its receiver`);
        if (ids.size > 1 || (ids.size === 1 && !ids.has(event.eventId))) problems.push(`${event.taskId} arrived under webhook-ids ${[...ids].join(', ')}`);
      }
      return problems;
    }),
  );
  report(
    'SIGNATURES_HOLD',
    'every webhook delivery carries a valid signature',
    deliveries.filter((d) => !d.verified).map((d) => `${d.user} ${d.webhookId}`),
  );
}

/** Nothing left in an outbox, nothing wrong in a dead letter, nothing lost from a topic. */
function logKept({ evidence, report }: Reading): void {
  report(
    'OUTBOX_DRAINED',
    'no outbox row is left unpublished (parked rows are reported apart)',
    evidence.outbox.filter((o) => o.unpublished > 0).map((o) => `${o.service}: ${o.unpublished} rows unpublished`),
  );
  report(
    'DEAD_LETTERS_ARE_PERMANENT',
    'the dead-letter topics hold only permanent failures, each with its reason',
    evidence.deadLetters
      .filter((d) => !(d.errorCode in errorCodes) || errorCodes[d.errorCode as keyof typeof errorCodes].retriable || !d.errorMessage)
      .map((d) => `${d.topic}: ${d.errorCode} ${d.errorMessage.slice(0, 80)}`),
  );
  const placed = [...evidence.events, ...(evidence.partnerCopies ?? [])];
  const onTopic = new Set(placed.map((p) => `${p.topic} ${p.event.eventId}`));
  // The keys' topic is compacted: a key's record replaced by its erasure is meant to leave it.
  const kept = evidence.acknowledged.filter((a) => !keyTopics.has(a.topic));
  report(
    'ACKNOWLEDGED_EVENTS_KEPT',
    'every event acknowledged to a producer (a relay’s mark, an outside producer’s answer) is on its topic at the end',
    kept.filter((a) => !onTopic.has(`${a.topic} ${a.eventId}`)).map((a) => `${a.by}: ${a.eventId} is not on ${a.topic}`),
  );
  const atPlace = new Map(placed.map((p) => [`${p.topic} ${p.partition} ${p.offset}`, p.event.eventId]));
  report(
    'NO_TRUNCATION_BEHIND_ACK',
    'no partition lost or rewrote a record at an offset a producer was acknowledged',
    kept
      .filter((a) => a.partition !== null && a.offset !== null && atPlace.get(`${a.topic} ${a.partition} ${a.offset}`) !== a.eventId)
      .map(
        (a) => `${a.by}: ${a.topic}[${a.partition}]@${a.offset} holds ${atPlace.get(`${a.topic} ${a.partition} ${a.offset}`) ?? 'nothing'}, not ${a.eventId}`,
      ),
  );
}

/** Every fault took effect, every erasure completed, every event decodes. */
function faultsAndErasures({ evidence, outside, report }: Reading): void {
  const effects = evidence.history.filter((h): h is EffectEntry => h.kind === 'effect');
  report(
    'FAULTS_TAKE_EFFECT',
    'every cluster fault was seen while it lasted (a leader moved, a broker left the in-sync replicas, the controller moved, a standby was promoted)',
    effects.filter((e) => e.seen === null && !e.cutShort).map((e) => `fault ${e.id} ${e.fault} was never seen${e.lastError ? ` (${e.lastError})` : ''}`),
  );
  report(
    'ERASURES_COMPLETE',
    'an erasure answered 202 ends ERASED (every service answered), and every task its user had before it reads input "[erased]"',
    (evidence.erasures ?? []).flatMap((e) => [
      ...(e.status === 'ERASED' ? [] : [`${e.user}: erasure ${e.status ?? 'not found'}`]),
      ...e.tasks
        .filter((t) => e.requestedAt !== null && t.createdAt < e.requestedAt && t.input !== '[erased]')
        .map((t) => `${e.user}: task ${t.taskId} still shows its input`),
    ]),
  );
  const undecodable = evidence.undecodable - outside.filter((p) => p.hostile !== undefined && notARequest.has(p.hostile)).length;
  report(
    'EVENTS_DECODE',
    'every message on an event topic decodes, but those written as no request on purpose (another type, cut or mis-framed Avro, garbage)',
    undecodable > 0 ? [`${undecodable} undecodable`] : [],
  );
}
