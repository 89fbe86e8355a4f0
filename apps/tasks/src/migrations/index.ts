import type { Migration } from '@app/database';
import { messagingMigrations, outboxParkedUntil } from '@app/messaging';
import { tasksTables } from './001-tasks';
import { taskDeadline } from './002-task-deadline';
import { userLimits } from './003-user-limits';
import { openTaskCounts } from './004-open-task-counts';
import { cancelledTasks } from './005-cancelled-tasks';
import { personalData } from './006-personal-data';
import { partnersTable } from './007-partners';
import { taskSearchIndexes } from './008-task-search';
import { partnerLimits } from './009-partner-limits';
import { operatorRuns } from './010-operator-runs';
import { userDataKeysTable } from '@app/personal-data';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones (the order of those applied may change). */
export const tasksMigrations: Migration[] = [
  ...messagingMigrations,
  tasksTables,
  taskDeadline,
  userLimits,
  openTaskCounts,
  cancelledTasks,
  userDataKeysTable,
  personalData,
  partnersTable,
  taskSearchIndexes,
  outboxParkedUntil,
  partnerLimits,
  operatorRuns,
];
