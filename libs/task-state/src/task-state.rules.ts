import type { DomainEvent } from '@app/events';

export const taskStates = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'RETRYING', 'COMPENSATING', 'COMPENSATED', 'CANCELLED'] as const;
export type TaskState = (typeof taskStates)[number];

export const terminalStates: ReadonlySet<TaskState> = new Set<TaskState>(['SUCCESS', 'FAILED', 'COMPENSATED', 'CANCELLED']);

/**
 * What the tasks service knows of one task. Events of one task come from several topics and so in
 * any order; each fact only ever becomes known (booleans turn true, counters take the maximum), so
 * folding the same events in any order, any number of times, gives the same facts.
 */
export interface TaskFacts {
  requested: boolean;
  debited: boolean;
  rejected: boolean;
  succeeded: boolean;
  generationFailed: boolean;
  refunded: boolean;
  /** Highest attempt a GenerationStarted announced. */
  attemptsStarted: number;
  /** Highest attempt that failed transiently (GenerationRetryScheduled). */
  attemptsRetried: number;
  /** Attempts as the final generation event counted them. */
  attemptsFinal: number;
  rejectionReason: string | null;
  /** Why quota refused: INSUFFICIENT_QUOTA, or TIMED_OUT when the task deadline passed first. */
  rejectionCode?: string | null;
  failureReason: string | null;
  failureCode: string | null;
  reportRef: string | null;
  /**
   * The tasks service took a cancel (TaskCancelled), which it does only while the task has no
   * outcome: whatever comes after moves nothing. Absent in rows written before cancellation existed.
   */
  cancelled?: boolean;
  cancelledBy?: string | null;
}

export const noFacts: TaskFacts = {
  requested: false,
  debited: false,
  rejected: false,
  succeeded: false,
  generationFailed: false,
  refunded: false,
  attemptsStarted: 0,
  attemptsRetried: 0,
  attemptsFinal: 0,
  rejectionReason: null,
  rejectionCode: null,
  failureReason: null,
  failureCode: null,
  reportRef: null,
  cancelled: false,
  cancelledBy: null,
};

/** Folds one event into the facts; events that say nothing of the task's state leave them as they are. */
export function evolve(facts: TaskFacts, event: DomainEvent): TaskFacts {
  switch (event.eventType) {
    case 'TaskRequested':
    case 'TaskAccepted':
      return { ...facts, requested: true };
    case 'QuotaDebited':
      return { ...facts, debited: true };
    case 'QuotaRejected':
      return {
        ...facts,
        rejected: true,
        rejectionReason:
          facts.rejectionReason ?? (event.reason === 'TIMED_OUT' ? 'no outcome within the task deadline' : `not enough quota (balance ${event.balance})`),
        rejectionCode: facts.rejectionCode ?? event.reason,
      };
    case 'GenerationStarted':
      return { ...facts, attemptsStarted: Math.max(facts.attemptsStarted, event.attempt) };
    case 'GenerationRetryScheduled':
      return { ...facts, attemptsRetried: Math.max(facts.attemptsRetried, event.attempt) };
    case 'GenerationSucceeded':
      return { ...facts, succeeded: true, reportRef: event.reportRef, attemptsFinal: Math.max(facts.attemptsFinal, event.attempt) };
    case 'GenerationFailed':
      return {
        ...facts,
        generationFailed: true,
        failureReason: facts.failureReason ?? event.reason,
        failureCode: facts.failureCode ?? event.errorCode,
        attemptsFinal: Math.max(facts.attemptsFinal, event.attempts),
      };
    case 'QuotaRefunded':
      return { ...facts, refunded: true };
    case 'TaskCancelled':
      return { ...facts, cancelled: true, cancelledBy: facts.cancelledBy ?? event.cancelledBy };
    default:
      return facts;
  }
}

/**
 * The state table: the first row whose condition holds gives the task's state. Because it reads
 * only facts, the state converges whatever the order of arrival, and a terminal state, once
 * reached, stays: no later fact can undo the one that made it terminal. A cancel comes first: the
 * tasks service publishes TaskCancelled only for a task that had no outcome yet (decideCancel), so a
 * generation's outcome that arrives after it is the one that lost the race.
 */
export const stateTable: ReadonlyArray<readonly [TaskState, (f: TaskFacts) => boolean]> = [
  ['CANCELLED', (f) => f.cancelled === true],
  ['SUCCESS', (f) => f.succeeded],
  ['FAILED', (f) => f.rejected],
  ['COMPENSATED', (f) => f.generationFailed && f.refunded],
  ['COMPENSATING', (f) => f.generationFailed || f.refunded],
  ['RETRYING', (f) => f.attemptsRetried > 0 && f.attemptsRetried >= f.attemptsStarted],
  ['RUNNING', (f) => f.attemptsStarted > 0],
  ['QUEUED', () => true],
];

export function stateOf(facts: TaskFacts): TaskState {
  return stateTable.find(([, holds]) => holds(facts))![0];
}

export function attemptsOf(facts: TaskFacts): number {
  return Math.max(facts.attemptsStarted, facts.attemptsFinal);
}

export function reasonOf(facts: TaskFacts): string | null {
  const state = stateOf(facts);
  if (state === 'FAILED') return facts.rejectionReason;
  if (state === 'COMPENSATING' || state === 'COMPENSATED') return facts.failureReason;
  if (state === 'CANCELLED') return `cancelled by ${facts.cancelledBy ?? 'someone'}`;
  return null;
}

/**
 * A cancel request, decided by the tasks service (the one service that sees both the cancel and the
 * outcome) on what it has recorded: a task with no outcome yet is cancelled; one that has its
 * outcome keeps it, and the cancel is refused.
 */
export function decideCancel(facts: TaskFacts): 'cancel' | 'already-ended' {
  return terminalStates.has(stateOf(facts)) ? 'already-ended' : 'cancel';
}

export type Outcome = { eventType: 'TaskCompleted'; reportRef: string } | { eventType: 'TaskFailed'; reason: string; errorCode: string; compensated: boolean };

/** The terminal event the task owes the world, once it is in a terminal state. */
export function outcomeOf(facts: TaskFacts): Outcome | null {
  switch (stateOf(facts)) {
    case 'SUCCESS':
      return { eventType: 'TaskCompleted', reportRef: facts.reportRef ?? '' };
    case 'FAILED':
      return {
        eventType: 'TaskFailed',
        reason: facts.rejectionReason ?? 'rejected',
        errorCode: facts.rejectionCode ?? 'INSUFFICIENT_QUOTA',
        compensated: false,
      };
    case 'COMPENSATED':
      return {
        eventType: 'TaskFailed',
        reason: facts.failureReason ?? 'generation failed',
        errorCode: facts.failureCode ?? 'HANDLER_FAILED',
        compensated: true,
      };
    case 'CANCELLED':
      // Never charged: quota refunds a debit on TaskCancelled, or refuses a task it had not debited.
      return { eventType: 'TaskFailed', reason: reasonOf(facts) ?? 'cancelled', errorCode: 'CANCELLED', compensated: true };
    default:
      return null;
  }
}
