import type { Migration } from '@app/database';
import { messagingMigrations, outboxParkedUntil } from '@app/messaging';
import { quotaTables } from './001-quota';
import { grantKeys } from './002-grant-keys';
import { settledTasks } from './003-settled-tasks';
import { storedBalance } from './004-stored-balance';
import { partnerBudgets } from './005-partner-budgets';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones (the order of those applied may change). */
export const quotaMigrations: Migration[] = [...messagingMigrations, quotaTables, grantKeys, settledTasks, storedBalance, outboxParkedUntil, partnerBudgets];
