// Generated from schemas/ by `npm run codegen`; do not edit. A unit test fails when it drifts.

/** The fields every event carries first, in this order. Each schema in this folder names only its own fields; the codec and codegen put these before them (libs/events: loadSchema). An event may name one of these again to give it its own doc; its type stays this one. `T` is the event's type. */
export interface Envelope<T extends string = string> {
  /** Unique per event; consumers deduplicate by it. */
  eventId: string;
  /** Always the record name. */
  eventType: T;
  occurredAt: number;
  /** Also the Kafka message key. */
  taskId: string;
  userId: string;
  /** Shared by every event of one task's flow. */
  correlationId: string;
  /** The eventId that caused this event; null for a request. */
  causationId: null | string;
  /** The service or system that produced the event. */
  producer: string;
}

export const envelopeFields = ['eventId', 'eventType', 'occurredAt', 'taskId', 'userId', 'correlationId', 'causationId', 'producer'] as const;

export const eventTypes = ['GenerationFailed', 'GenerationRetryScheduled', 'GenerationStarted', 'GenerationSucceeded', 'NotificationSent', 'QuotaDebited', 'QuotaRefunded', 'QuotaRejected', 'TaskAccepted', 'TaskCancelRejected', 'TaskCancelRequested', 'TaskCancelled', 'TaskCompleted', 'TaskFailed', 'TaskRejected', 'TaskRequested', 'TaskTimedOut', 'UserDataErased', 'UserDataKey', 'UserErasureRequested'] as const;
export type EventType = (typeof eventTypes)[number];

/** A permanent error, or the retries are spent. Triggers the quota refund. */
export interface GenerationFailed extends Envelope<'GenerationFailed'> {
  attempts: number;
  /** PERMANENT, RETRIES_EXHAUSTED or TIMED_OUT */
  errorClass: string;
  errorCode: string;
  reason: string;
}

/** An attempt failed transiently; the next one is scheduled. */
export interface GenerationRetryScheduled extends Envelope<'GenerationRetryScheduled'> {
  /** The attempt that failed. */
  attempt: number;
  nextAttemptAt: number;
  errorCode: string;
  reason: string;
}

/** An attempt to generate the report began. */
export interface GenerationStarted extends Envelope<'GenerationStarted'> {
  /** 1 for the first attempt. */
  attempt: number;
}

/** The report is stored. */
export interface GenerationSucceeded extends Envelope<'GenerationSucceeded'> {
  attempt: number;
  reportRef: string;
  /** The stored report's size in bytes; null from a producer that predates the field. */
  reportBytes: null | number;
}

/** The user was told of a task's outcome (once per outcome). */
export interface NotificationSent extends Envelope<'NotificationSent'> {
  /** TaskCompleted or TaskFailed */
  outcome: string;
  /** inbox or webhook */
  channel: string;
}

/** One quota unit was taken for this task (at most once per taskId). */
export interface QuotaDebited extends Envelope<'QuotaDebited'> {
  amount: number;
  balanceAfter: number;
}

/** Compensation: the debit for this task was given back (at most once per taskId). */
export interface QuotaRefunded extends Envelope<'QuotaRefunded'> {
  amount: number;
  balanceAfter: number;
}

/** Not enough quota: a permanent refusal, nothing to compensate. */
export interface QuotaRejected extends Envelope<'QuotaRejected'> {
  /** INSUFFICIENT_QUOTA; TIMED_OUT when the task deadline passed before quota decided; CANCELLED when the task was cancelled before quota decided */
  reason: string;
  balance: number;
}

/** The platform accepted a request: from POST /tasks, or an outside TaskRequested the tasks service adopted (its causationId is then the outside eventId). The only event that starts work; only the tasks service writes it. */
export interface TaskAccepted extends Envelope<'TaskAccepted'> {
  /** The submitter's key, scoped per user. */
  idempotencyKey: null | string;
  reportType: string;
  /** The report's input as a JSON object text, sealed under its user's data key since version 2: sealed:v1:<data key id>:<AES-256-GCM sealed text> (docs/privacy.md). A value written before sealing is the JSON text itself; readers pass it through. */
  input: string;
}

/** An outside cancel the tasks service refused: the task had already ended (its outcome stands), or it is not that user’s task. */
export interface TaskCancelRejected extends Envelope<'TaskCancelRejected'> {
  /** ALREADY_ENDED or UNKNOWN_TASK */
  reason: string;
  /** The task’s state when the cancel was refused (ALREADY_ENDED). */
  state: null | string;
}

/** An outside system asks to cancel a task of userId, as POST /tasks/{taskId}/cancel does. The tasks service decides: TaskCancelled, or TaskCancelRejected. */
export interface TaskCancelRequested extends Envelope<'TaskCancelRequested'> {
}

/** The tasks service took a cancel before the task had an outcome: the task ends CANCELLED. Quota refunds a debit (or refuses a task it never debited), generation stops the job; the outcome is TaskFailed{errorCode: CANCELLED}. */
export interface TaskCancelled extends Envelope<'TaskCancelled'> {
  /** Who cancelled: the user, an admin’s user id, or the outside system’s user. */
  cancelledBy: string;
}

/** Terminal success of a task. */
export interface TaskCompleted extends Envelope<'TaskCompleted'> {
  reportRef: string;
}

/** Terminal failure of a task, with the reason the user is told. */
export interface TaskFailed extends Envelope<'TaskFailed'> {
  reason: string;
  errorCode: string;
  /** True when the user is not charged for the failed task: its debit was refunded, or, for a cancel (errorCode CANCELLED), quota refunds or refuses it. */
  compensated: boolean;
}

/** An outside TaskRequested that the tasks service did not accept: it reused an idempotency key. */
export interface TaskRejected extends Envelope<'TaskRejected'> {
  /** KEY_REUSED (the key was used with other content), DUPLICATE (the same request under another taskId), INVALID_INPUT (input is not a JSON object), INPUT_TOO_DEEP (over 32 levels), INPUT_TOO_LARGE (over 10,000 values), UNSTORABLE_TEXT (a NUL or a lone surrogate), SIMULATION_OFF (input.simulate where simulation is off) or TOO_MANY_OPEN_TASKS (the user has USER_MAX_OPEN_TASKS unfinished tasks) */
  reason: string;
  idempotencyKey: null | string;
}

/** An outside system asks for a report (the ingress). The tasks service adopts it into a TaskAccepted, or answers TaskRejected. */
export interface TaskRequested extends Envelope<'TaskRequested'> {
  /** The submitter's key, scoped per user. */
  idempotencyKey: null | string;
  reportType: string;
  /** The report's input as a JSON object text. */
  input: string;
}

/** A task had no outcome past the task deadline, even after its accepted request was published again. Quota refuses it if it never decided on it; generation fails it if it was debited, so it is refunded. */
export interface TaskTimedOut extends Envelope<'TaskTimedOut'> {
  /** What was waited for, and how long. */
  reason: string;
}

/** A service erased what it kept of a user’s personal data for an erasure: the tasks service counts the answers to tell the erasure’s status. */
export interface UserDataErased extends Envelope<'UserDataErased'> {
  /** quota, generation or notification. */
  service: string;
  /** How many personal items (keys, inputs, reports, webhooks) it removed. */
  erased: number;
}

/** A user’s data key, as the tasks service issued it (wrapped under the operator’s master key), or its erasure (wrappedKey null). On the compacted topic user-data-key, keyed by the key’s id: compaction keeps the last record of each key, so an erased key’s wrapped bytes leave the topic. Readable by the tasks and generation principals only. */
export interface UserDataKey extends Envelope<'UserDataKey'> {
  /** wrapped:v1:<master key id>:<sealed key>; null once the user was erased. */
  wrappedKey: null | string;
}

/** An admin asked for a user’s personal data to be erased (DELETE /users/{userId}/data): every service deletes its copies of the user’s key and personal rows, and answers UserDataErased. */
export interface UserErasureRequested extends Envelope<'UserErasureRequested'> {
  /** The admin who asked. */
  requestedBy: string;
}

export type DomainEvent =
  | GenerationFailed
  | GenerationRetryScheduled
  | GenerationStarted
  | GenerationSucceeded
  | NotificationSent
  | QuotaDebited
  | QuotaRefunded
  | QuotaRejected
  | TaskAccepted
  | TaskCancelRejected
  | TaskCancelRequested
  | TaskCancelled
  | TaskCompleted
  | TaskFailed
  | TaskRejected
  | TaskRequested
  | TaskTimedOut
  | UserDataErased
  | UserDataKey
  | UserErasureRequested;
