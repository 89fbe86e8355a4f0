import type { EventOf } from '@app/events';

export type Outcome = EventOf<'TaskCompleted'> | EventOf<'TaskFailed'>;

/** How the user is told of one outcome. */
export interface NotificationDecision {
  message: string;
  /** `webhook`: pending, for the delivery worker; `inbox`: delivered at once, and NotificationSent published now. */
  channel: 'webhook' | 'inbox';
}

/** What the user reads: the outcome and, for a failure, the reason and whether the quota came back. */
export function messageFor(event: Outcome): string {
  if (event.eventType === 'TaskCompleted') return `Your report is ready: ${event.reportRef}`;
  if (event.errorCode === 'CANCELLED') return `Your report was ${event.reason}. You are not charged for it.`;
  const refund = event.compensated ? ' The quota it used has been refunded.' : '';
  return `Your report could not be produced: ${event.reason}.${refund}`;
}

/** A user with a webhook is told through it; any other reads it in their inbox. */
export function decideNotification(event: Outcome, userHasWebhook: boolean): NotificationDecision {
  return { message: messageFor(event), channel: userHasWebhook ? 'webhook' : 'inbox' };
}
