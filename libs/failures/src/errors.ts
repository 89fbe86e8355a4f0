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

// The registry client reports a refused connection or a timed-out request as a status 400 whose
// message names it ("Error, status 400: Timeout (5000ms)"): read the message too.
const unreachableMessage =
  /Connection terminated|Timeout acquiring a connection|fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|socket hang up|did not finish within|Timeout \(\d+ms\)/i;

/**
 * True when the error is an outage of something we depend on (database, registry, broker) rather
 * than a problem with the message: such a message must wait for the outage to end, never be
 * dead-lettered.
 */
export function isInfrastructureError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; status?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && (unreachableCodes.has(candidate.code) || isTransientSqlState(candidate.code))) return true;
    if (isTransientStatus(candidate.status)) return true;
    if (candidate.name === 'DeadlineExceeded') return true;
    if (typeof candidate.message === 'string' && unreachableMessage.test(candidate.message)) return true;
    current = candidate.cause;
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
