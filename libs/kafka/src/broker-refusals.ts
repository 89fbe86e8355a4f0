/** The broker's "too large" answers, wherever kafkajs wrapped them. */
export function isTooLarge(error: unknown): boolean {
  return hasErrorType(error, ['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);
}

/** The broker's answer that a topic is not ours to write, or not there: a destination refused (a partner removed). */
export function isDestinationRefused(error: unknown): boolean {
  return hasErrorType(error, ['TOPIC_AUTHORIZATION_FAILED', 'UNKNOWN_TOPIC_OR_PARTITION']);
}

/** Whether kafkajs's error, or one it wrapped, is of one of `types` (by the broker's code, never by text). */
function hasErrorType(error: unknown, types: string[]): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return false;
    seen.add(e);
    const { type, cause, originalError, errors } = e as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
    if (typeof type === 'string' && types.includes(type)) return true;
    return visit(cause, depth + 1) || visit(originalError, depth + 1) || (Array.isArray(errors) && errors.some((x) => visit(x, depth + 1)));
  };
  return visit(error, 0);
}
