import { causedBy, EventOf, requestAcceptor } from '@app/events';

/** The platform's acceptance of a request: the same task and content, caused by it, written by tasks. */
export function acceptanceOf(request: EventOf<'TaskRequested'>): EventOf<'TaskAccepted'> {
  return causedBy(request, 'TaskAccepted', { idempotencyKey: request.idempotencyKey, reportType: request.reportType, input: request.input }, requestAcceptor);
}
