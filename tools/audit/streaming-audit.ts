import { DomainEvent, identityProblems } from '@app/events';
import { eventOfKind } from '@app/quota-ledger';
import type { AuditReport, InvariantName, Violation } from './audit-report';
import { EventIdSet, idBytes, Mark, MarkArena } from './off-heap';

/** The events the invariants look at, each a kind of mark; a notification's kind says its outcome. */
const kindOf: Record<string, number> = {
  TaskCompleted: 1,
  TaskFailed: 2,
  TaskRejected: 3,
  [eventOfKind.debit]: 4,
  [eventOfKind.refund]: 5,
  GenerationFailed: 6,
  GenerationSucceeded: 7,
  TaskCancelled: 12,
};
const notificationKinds: Record<string, number> = { TaskCompleted: 8, TaskFailed: 9, TaskRejected: 10 };
const otherNotification = 11;
const notificationOutcome = ['TaskCompleted', 'TaskFailed', 'TaskRejected', 'another outcome'];

/** One task, in a few bytes of heap: its marks live off-heap, chained from `head`. */
interface TaskTally {
  userId: string;
  requestedAt: number | null;
  head: number;
}

/** Event ids in the order the events occurred (arrival order among equals), as the report names them. */
function idsOf(marks: Mark[]): string[] {
  return [...marks].sort((a, b) => a.at - b.at).map((mark) => mark.id);
}

/**
 * The audit of a history too long to hold: each event is folded into its task's tally as it is
 * read, and copies (same eventId) are counted and skipped. Event ids and the few events the
 * invariants name are kept outside the heap; the heap holds one small object per task.
 */
export class StreamingAudit {
  private readonly seen = new EventIdSet();
  private readonly marks = new MarkArena();
  private readonly tasks = new Map<string, TaskTally>();
  private events = 0;
  private duplicates = 0;
  private refused = 0;

  add(event: DomainEvent): void {
    this.events++;
    // A request forged with an eventId or taskId that is no uuid was never taken in: it has a dead letter, not a task.
    if (identityProblems(event as unknown as Record<string, unknown>).length > 0) {
      this.refused++;
      return;
    }
    const id = idBytes(event.eventId);
    if (!this.seen.add(id)) {
      this.duplicates++;
      return;
    }
    let task = this.tasks.get(event.taskId);
    if (!task) this.tasks.set(event.taskId, (task = { userId: event.userId, requestedAt: null, head: 0 }));
    const type = event.eventType;
    if (type === 'TaskRequested' || type === 'TaskAccepted') task.requestedAt = Math.min(task.requestedAt ?? Infinity, event.occurredAt);
    const kind = type === 'NotificationSent' ? (notificationKinds[(event as { outcome: string }).outcome] ?? otherNotification) : kindOf[type];
    if (kind) task.head = this.marks.append(task.head, kind, id, event.occurredAt);
  }

  /**
   * The system's promises over everything added, each broken one named. A task requested more than
   * `stuckAfterMs` before `now` with no outcome is stuck: the tasks service's deadline should have ended it.
   */
  report(now: number, stuckAfterMs: number): AuditReport {
    const violations: Violation[] = [];
    const inFlight: AuditReport['inFlight'] = [];
    const perUser = new Map<string, { debits: number; refunds: number; completed: number }>();
    for (const [taskId, task] of this.tasks) {
      const violate = (invariant: InvariantName, marks: Mark[], message: string) =>
        violations.push({ invariant, subject: taskId, eventIds: idsOf(marks), message });
      const marks = this.marks.marksFrom(task.head);
      const of = (...kinds: number[]) => marks.filter((m) => kinds.includes(m.kind));
      const cancelled = of(12).length > 0;
      // A generation that succeeded after the cancel lost the race: for a cancelled task, only TaskCompleted is a completion.
      const [terminal, debits, refunds, failures, completed] = [of(1, 2, 3), of(4), of(5), of(6), cancelled ? of(1) : of(7, 1)];
      if (terminal.length > 1) violate('ONE_TERMINAL_OUTCOME', terminal, `task has ${terminal.length} terminal events`);
      if (terminal.length === 0 && task.requestedAt !== null) {
        const ageMs = now - task.requestedAt;
        inFlight.push({ taskId, ageMs });
        if (ageMs > stuckAfterMs) violate('NO_TASK_STUCK_PAST_DEADLINE', [], `no outcome ${Math.round(ageMs / 1000)} s after the request`);
      }
      if (debits.length > 1) violate('ONE_DEBIT_PER_TASK', debits, `task was debited ${debits.length} times`);
      if (refunds.length > 0 && debits.length === 0) violate('NO_REFUND_WITHOUT_DEBIT', refunds, 'task was refunded but never debited');
      if (refunds.length > 0 && completed.length > 0) violate('NO_REFUND_OF_COMPLETED_TASK', [...completed, ...refunds], 'task both completed and refunded');
      if (failures.length > 0 && debits.length > 0 && refunds.length !== 1) {
        violate('REFUND_AFTER_FAILED_GENERATION', [...failures, ...refunds], `failed generation after a debit has ${refunds.length} refunds`);
      }
      if (cancelled && terminal.length > 0 && (debits.length !== refunds.length || completed.length > 0)) {
        const message = completed.length > 0 ? 'cancelled task completed' : `cancelled task charged: ${debits.length} debits, ${refunds.length} refunds`;
        violate('CANCELLED_TASK_NOT_CHARGED', [...of(12), ...debits, ...refunds, ...completed], message);
      }
      for (let kind = 8; kind <= otherNotification; kind++) {
        const sent = of(kind);
        if (sent.length > 1) violate('ONE_NOTIFICATION_PER_OUTCOME', sent, `${sent.length} notifications for ${notificationOutcome[kind - 8]}`);
      }
      // A task still in flight may hold a debit its outcome has yet to balance: only finished tasks count.
      if (terminal.length > 0) {
        const user = perUser.get(task.userId) ?? { debits: 0, refunds: 0, completed: 0 };
        user.debits += debits.length;
        user.refunds += refunds.length;
        user.completed += of(1).length;
        perUser.set(task.userId, user);
      }
    }
    for (const [userId, u] of perUser) {
      if (u.debits - u.refunds !== u.completed) {
        const message = `debits (${u.debits}) − refunds (${u.refunds}) ≠ completed tasks (${u.completed})`;
        violations.push({ invariant: 'USER_LEDGER_BALANCES', subject: userId, eventIds: [], message });
      }
    }
    return { events: this.events, duplicates: this.duplicates, refused: this.refused, tasks: this.tasks.size, inFlight, violations };
  }
}
