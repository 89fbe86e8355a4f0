/**
 * The error vocabulary every service shares: a closed set of codes, each either retriable (worth
 * another attempt) or not (a repeat would fail the same way).
 */
export const errorCodes = {
  // messaging
  DECODE_FAILED: { retriable: false },
  UNKNOWN_SCHEMA: { retriable: false },
  TOPIC_MISMATCH: { retriable: false },
  INVALID_EVENT: { retriable: false },
  // a schema provisioning has not registered yet: a service waits for it rather than register it
  SCHEMA_NOT_REGISTERED: { retriable: true },
  HANDLER_FAILED: { retriable: true },
  INFRASTRUCTURE_UNAVAILABLE: { retriable: true },
  // business refusals and outcomes
  INSUFFICIENT_QUOTA: { retriable: false },
  KEY_REUSED: { retriable: false },
  // calls to the model
  MODEL_TIMEOUT: { retriable: true },
  MODEL_UNAVAILABLE: { retriable: true },
  MODEL_RATE_LIMITED: { retriable: true },
  MODEL_REJECTED: { retriable: false },
  ATTEMPT_INTERRUPTED: { retriable: true },
  INVALID_OUTPUT: { retriable: false },
  RETRIES_EXHAUSTED: { retriable: false },
  TIMED_OUT: { retriable: false },
  CANCELLED: { retriable: false },
  /** The task's input can no longer be read: its user was erased. */
  INPUT_ERASED: { retriable: false },
  /** The user's data key has not reached this service yet (it travels on its own topic). */
  DATA_KEY_NOT_YET_KNOWN: { retriable: true },
} as const satisfies Record<string, { retriable: boolean }>;

export type ErrorCode = keyof typeof errorCodes;

export class PlatformError extends Error {
  readonly retriable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PlatformError';
    this.retriable = errorCodes[code].retriable;
  }
}

/** Node's ways of saying "the other side is not there right now". */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * SQLSTATEs that say the database cannot do the work right now, not that the work is wrong: a
 * repeat after the condition passes succeeds. By class: 08 connection, 53 insufficient resources,
 * 57P operator intervention (shutdown, crash shutdown, cannot connect now), 58 system error, 28
 * invalid authorization (a rotated password); and single codes: 25006 read-only transaction (what a
 * failover looks like to a client), 57014 query cancelled, 40001 serialization failure, 40P01
 * deadlock, 55P03 lock not available.
 */
const transientSqlStateClasses = ['08', '53', '57P', '58', '28'];
const transientSqlStates = new Set(['25006', '57014', '40001', '40P01', '55P03']);

export function isTransientSqlState(code: string): boolean {
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return transientSqlStates.has(code) || transientSqlStateClasses.some((prefix) => code.startsWith(prefix));
}

/** A registry or other HTTP dependency answering "not now": 5xx, 429, 408. */
function isTransientStatus(status: unknown): boolean {
  return typeof status === 'number' && (status >= 500 || status === 429 || status === 408);
}

/**
 * Client errors that say "not there right now" and carry no code, each recognised by its class and
 * its client's own fixed wording, never by a pattern that could find words a message put in the text:
 * - pg and pg-pool throw plain Errors whose message is one of these, behind the statement's text
 *   when knex ran it (`<sql> - Connection terminated`; our pools keep values out of that text);
 * - the registry client turns a request that never got an answer (refused, reset, timed out) into a
 *   ResponseError of status 400 whose text is "<client> - Error, status 400: <what Node said>"; an
 *   answer the registry gave carries its own message instead of that prefix.
 */
const pgUnreachableMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  // pg's own connect timeout (connectionTimeoutMillis), as knex's pool meets it: a server that does not answer
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
]);
const registryUnanswered = /^[\w.-]* - Error, status 400: /;

/** Client error classes that are outages by themselves: a deadline of ours, knex's pool, the Kafka client's timeouts. */
const unreachableErrorNames = new Set([
  'DeadlineExceeded',
  'KnexTimeoutError',
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
  'KafkaJSMetadataNotLoaded',
]);

const sqlStateShape = /^[0-9A-Z]{5}$/;

type Layer = { code?: unknown; status?: unknown; name?: unknown; message?: unknown; retriable?: unknown; cause?: unknown };

/** One layer's verdict: true or false when it decides, undefined when its cause must be asked. */
function layerVerdict(error: Layer): boolean | undefined {
  const { code, status, name, message } = error;
  if (typeof code === 'string') {
    if (unreachableCodes.has(code)) return true;
    // A SQLSTATE decides alone: PostgreSQL's text may quote the offending value (`invalid input
    // syntax for type uuid: "fetch failed"`), and a value is never evidence of an outage.
    if (sqlStateShape.test(code)) return isTransientSqlState(code);
  }
  if (typeof name === 'string') {
    if (unreachableErrorNames.has(name)) return true;
    // kafkajs flags its own errors; a retriable one is the cluster's state (a leader moving), not the message's.
    if (name.startsWith('KafkaJS') && error.retriable === true) return true;
    if (name === 'TimeoutError' && error instanceof DOMException) return true;
    if (name === 'ResponseError') return isTransientStatus(status) || (status === 400 && typeof message === 'string' && registryUnanswered.test(message));
  }
  if (isTransientStatus(status)) return true;
  if (Object.getPrototypeOf(error) === Error.prototype && typeof message === 'string' && pgUnreachableMessages.has(message.split(' - ').pop()!)) return true;
  return undefined;
}

/**
 * True when the error is an outage of something we depend on (database, registry, broker) rather
 * than a problem with the message: such a message must wait for the outage to end, never be
 * dead-lettered. Decided by the error's kind — SQLSTATE, Node's network codes, a client's error
 * class or HTTP status — down its chain of causes; never by words of a message's text, which a
 * caller can choose (an eventId of "fetch failed" once stopped a consumer for good).
 */
export function isInfrastructureError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const verdict = layerVerdict(current as Layer);
    if (verdict !== undefined) return verdict;
    current = (current as Layer).cause;
  }
  return false;
}

/** Errors are retriable unless they say otherwise; a PlatformError says so by its code. */
export function isRetriable(error: unknown): boolean {
  const flagged = (error as { retriable?: unknown } | null)?.retriable;
  return typeof flagged === 'boolean' ? flagged : true;
}

export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof PlatformError) return error.code;
  return isInfrastructureError(error) ? 'INFRASTRUCTURE_UNAVAILABLE' : 'HANDLER_FAILED';
}
