import type { Migration } from '@app/database';
import { messagingTables } from './messaging.migration';
import { outboxCopies, outboxParking, outboxPlaces } from './outbox/outbox-parking.migration';

/** The outbox's and inbox's tables, in order; a service lists them before its own migrations. */
export const messagingMigrations: Migration[] = [messagingTables, outboxParking, outboxPlaces, outboxCopies];
