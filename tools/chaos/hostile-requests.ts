import { randomUUID } from 'node:crypto';
import { DomainEvent, newEvent } from '@app/events';
import type { Random } from './random';

/**
 * What a careless or hostile outside producer can write on task-requested with its own credentials:
 * ids that read like an outage (PostgreSQL quotes them when it refuses them), an input over the HTTP
 * limit, and an event of another type. Each must end in a dead letter or a TaskRejected, alone.
 */
export const hostilities = ['outage-event-id', 'outage-task-id', 'oversized', 'wrong-type'] as const;
export type Hostility = (typeof hostilities)[number];

const outageWords = ['fetch failed', 'ECONNREFUSED 127.0.0.1:5432', 'Connection terminated unexpectedly'];

/** The event to write and the message key it travels under (always a fresh uuid, which its dead letter keeps). */
export function hostileRequest(kind: Hostility, random: Random, user: string, idempotencyKey: string): { event: DomainEvent; messageKey: string } {
  const messageKey = randomUUID();
  const origin = { taskId: messageKey, userId: user, correlationId: randomUUID(), causationId: null };
  const request = (input: string) => newEvent('TaskRequested', { idempotencyKey, reportType: 'summary', input }, origin, 'external') as DomainEvent;
  switch (kind) {
    case 'outage-event-id':
      return { event: { ...request('{}'), eventId: random.pick(outageWords) }, messageKey };
    case 'outage-task-id':
      return { event: { ...request('{}'), taskId: random.pick(outageWords) }, messageKey };
    case 'oversized':
      // Over HTTP_BODY_LIMIT (64 KB), well under the broker's 1 MiB.
      return { event: request(JSON.stringify({ text: 'x'.repeat(100 * 1024) })), messageKey };
    case 'wrong-type':
      return { event: newEvent('TaskCompleted', { reportRef: 'forged' }, origin, 'external') as DomainEvent, messageKey };
  }
}
