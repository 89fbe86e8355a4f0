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

/**
 * The task's trace for work an outsider asked for, its sampling left to this platform (flags 00: the
 * sampler decides by the task's share): what an outsider's own traceparent said is linked, never obeyed.
 */
export function ownTraceparentFor(correlationId: string): string {
  return traceparentFor(correlationId).replace(/-01$/, '-00');
}

const traceparentPattern = /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;

/** `text` when it is a W3C traceparent (and so bounded), else undefined: what an outsider's header may be recorded as. */
export function validTraceparent(text: string | undefined): string | undefined {
  return text !== undefined && traceparentPattern.test(text) ? text : undefined;
}

/** A new span in the trace of the message being handled, or a fresh one for the task when there is none. */
export function childTraceparent(incoming: string | undefined, correlationId: string): string {
  const match = incoming ? traceparentPattern.exec(incoming) : null;
  return match ? `00-${match[1]}-${randomBytes(8).toString('hex')}-${match[2]}` : traceparentFor(correlationId);
}
