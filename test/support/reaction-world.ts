import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { defaults, ServiceName } from '@app/config';
import { createKnex, dropDatabase, ensureDatabase, migrateToLatest, Migration } from '@app/database';
import { DomainEvent, EventBody, EventType, newEvent } from '@app/events';
import type { EventHandlers } from '@app/messaging';
import { reactWithoutBroker } from '@app/messaging/testing';
import { uniqueSuffix } from './unique';

/**
 * A reaction's int spec: the service's database of its own, migrated; events handed to its handlers
 * in one transaction with their inbox rows (reactWithoutBroker: the transport has its own suites);
 * and what each hand-over published, read back from the outbox.
 */
export class ReactionWorld {
  readonly url: string;
  readonly db: Knex;
  private lastOutboxId = '0';

  constructor(
    private readonly service: ServiceName,
    private readonly migrations: Migration[],
  ) {
    const url = new URL(process.env.DATABASE_URL || defaults.databaseUrl);
    url.pathname = `/reaction_${uniqueSuffix()}_${service}`;
    this.url = url.toString();
    this.db = createKnex(this.url);
  }

  async setup(): Promise<this> {
    await ensureDatabase(this.url);
    await migrateToLatest(this.db, this.migrations);
    return this;
  }

  async teardown(): Promise<void> {
    await this.db.destroy();
    await dropDatabase(this.url);
  }

  /** The events, of one type, to `handlers` as one batch; the events it published, in order. */
  async react(handlers: EventHandlers, ...events: DomainEvent[]): Promise<DomainEvent[]> {
    return this.reactOn(undefined, handlers, ...events);
  }

  /** As react, the events said to come from `topic` (a partner's, say). */
  async reactOn(topic: string | undefined, handlers: EventHandlers, ...events: DomainEvent[]): Promise<DomainEvent[]> {
    await reactWithoutBroker(this.db, this.service, handlers, events, topic);
    const rows: Array<{ id: string; payload: string; topic: string | null }> = await this.db('outbox')
      .where('id', '>', this.lastOutboxId)
      .orderBy('id')
      .select('id', 'payload', 'topic');
    if (rows.length > 0) this.lastOutboxId = String(rows[rows.length - 1].id);
    // Each event once, on its own topic; a copy of it for another topic (a partner's) is its own row
    return rows.filter((row) => row.topic === null).map((row) => (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as DomainEvent);
  }
}

/** An event of task `taskId` (a new one unless given) by `userId`, as `producer` would write it. */
export function eventOf<T extends EventType>(type: T, body: EventBody<T>, origin: { taskId?: string; userId?: string; producer?: string } = {}): DomainEvent {
  const { taskId = randomUUID(), userId = 'reaction-user', producer = 'test' } = origin;
  return newEvent(type, body, { taskId, userId, correlationId: randomUUID(), causationId: null }, producer) as DomainEvent;
}
