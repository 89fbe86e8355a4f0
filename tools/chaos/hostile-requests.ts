import { randomBytes, randomUUID } from 'node:crypto';
import { DomainEvent, newEvent } from '@app/events';
import type { Random } from './random';

/**
 * What a careless or hostile outside producer (a partner, or the single-partner default) can write on
 * its request topic with its own credentials: ids that read like an outage (PostgreSQL quotes them
 * when it refuses them), an input over the HTTP limit, an event of another type, and bytes no event
 * is: a request's Avro cut short, framed with another event's schema id, or garbage a little under
 * the topic's record limit. Each must end in a dead letter or a TaskRejected, alone.
 */
export const hostilities = [
  'outage-event-id',
  'outage-task-id',
  'oversized',
  'wrong-type',
  'truncated-avro',
  'foreign-schema-id',
  'near-limit-garbage',
] as const;
export type Hostility = (typeof hostilities)[number];

/** What is written as something other than a TaskRequested: nothing on the topic decodes to the request it was made from. */
export const notARequest: ReadonlySet<Hostility> = new Set<Hostility>(['wrong-type', 'truncated-avro', 'foreign-schema-id', 'near-limit-garbage']);

/** The bytes actually sent, from the request's own encoding and an encoder of other events. */
export type Mutation = (encoded: Buffer, encode: (event: DomainEvent) => Promise<Buffer>) => Promise<Buffer>;

const outageWords = ['fetch failed', 'ECONNREFUSED 127.0.0.1:5432', 'Connection terminated unexpectedly'];

/** The event to write and the message key it travels under (always a fresh uuid, which its dead letter keeps). */
export function hostileRequest(
  kind: Hostility,
  random: Random,
  user: string,
  idempotencyKey: string,
): { event: DomainEvent; messageKey: string; mutate?: Mutation } {
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
    case 'truncated-avro':
      // The frame (magic byte, schema id) and part of the body: a length or a field runs past the end
      return { event: request('{}'), messageKey, mutate: async (encoded) => encoded.subarray(0, 5 + random.between(1, encoded.length - 6)) };
    case 'foreign-schema-id':
      // The request's body under TaskCompleted's schema id, as a producer that mixed its subjects up writes it
      return {
        event: request('{}'),
        messageKey,
        mutate: async (encoded, encode) => {
          const other = await encode(newEvent('TaskCompleted', { reportRef: 'x' }, origin, 'external') as DomainEvent);
          return Buffer.concat([other.subarray(0, 5), encoded.subarray(5)]);
        },
      };
    case 'near-limit-garbage':
      // 200 KB of noise, under the request topics' 256 KiB records: its dead letter must still fit
      return { event: request('{}'), messageKey, mutate: async () => randomBytes(200 * 1024) };
  }
}
