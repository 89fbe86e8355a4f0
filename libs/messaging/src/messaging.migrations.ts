import type { Migration } from '@app/database';
import { messagingTables } from './messaging.migration';
import { outboxCopies, outboxParkedUntil, outboxParking, outboxPlaces } from './outbox/outbox-parking.migration';

/** The outbox's and inbox's first tables, in order; a service lists them before its own migrations. */
export const messagingMigrations: Migration[] = [messagingTables, outboxParking, outboxPlaces, outboxCopies];

/**
 * A messaging migration added after services had their own is exported alone, and each service lists it
 * at the end of its own, so that every migration a released database applied keeps its place
 * (test/deployment/expand-contract.int.spec.ts checks).
 */
export { outboxParkedUntil };

/** Everything the outbox and inbox need, for a database that holds nothing else (the messaging specs, the benches). */
export const allMessagingMigrations: Migration[] = [...messagingMigrations, outboxParkedUntil];
