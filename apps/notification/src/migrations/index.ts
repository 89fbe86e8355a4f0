import type { Migration } from '@app/database';
import { messagingTables, outboxParking, outboxPlaces } from '@app/messaging';
import { notificationTables } from './001-notification';
import { sealedSecrets } from './002-sealed-secrets';
import { notificationTraceContext } from './003-notification-trace-context';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones. */
export const notificationMigrations: Migration[] = [messagingTables, notificationTables, outboxParking, sealedSecrets, notificationTraceContext, outboxPlaces];
