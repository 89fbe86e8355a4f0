import type { Migration } from '@app/database';
import { messagingMigrations, outboxParkedUntil } from '@app/messaging';
import { notificationTables } from './001-notification';
import { sealedSecrets } from './002-sealed-secrets';
import { notificationTraceContext } from './003-notification-trace-context';
import { deliveryClaims } from './004-delivery-claims';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones (the order of those applied may change). */
export const notificationMigrations: Migration[] = [
  ...messagingMigrations,
  notificationTables,
  sealedSecrets,
  notificationTraceContext,
  deliveryClaims,
  outboxParkedUntil,
];
