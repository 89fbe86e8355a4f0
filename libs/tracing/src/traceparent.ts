import { randomBytes } from 'node:crypto';

/**
 * A W3C traceparent whose trace id is the task's correlation id, so that every event of one task's
 * flow belongs to one trace; each event is a new span.
 */
export function traceparentFor(correlationId: string): string {
  const hex = correlationId.replace(/-/g, '').toLowerCase();
  const traceId = /^[0-9a-f]{32}$/.test(hex) ? hex : randomBytes(16).toString('hex');
  return `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
}

const traceparentPattern = /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;

/** A new span in the trace of the message being handled, or a fresh one for the task when there is none. */
export function childTraceparent(incoming: string | undefined, correlationId: string): string {
  const match = incoming ? traceparentPattern.exec(incoming) : null;
  return match ? `00-${match[1]}-${randomBytes(8).toString('hex')}-${match[2]}` : traceparentFor(correlationId);
}
