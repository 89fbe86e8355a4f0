/**
 * The error vocabulary every service shares: a closed set of codes, each either retriable (worth
 * another attempt) or not (a repeat would fail the same way).
 */
export const errorCodes = {
  // messaging
  DECODE_FAILED: { retriable: false },
  UNKNOWN_SCHEMA: { retriable: false },
  INVALID_EVENT: { retriable: false },
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

/** Node's and PostgreSQL's ways of saying "the other side is not there right now". */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
]);

/**
 * True when the error is an outage of something we depend on (database, registry, broker) rather
 * than a problem with the message: such a message must wait for the outage to end, never be
 * dead-lettered.
 */
export function isInfrastructureError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && unreachableCodes.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && /Connection terminated|Timeout acquiring a connection|fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/i.test(candidate.message)) {
      return true;
    }
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
