import type { Migration } from '@app/database';
import { messagingMigrations, outboxParkedUntil } from '@app/messaging';
import { generationTables } from './001-generation';
import { refusedJobs } from './002-refused-jobs';
import { jobTraceContext } from './003-job-trace-context';
import { cancelledJobs } from './004-cancelled-jobs';
import { personalData } from './005-personal-data';
import { userShares } from './006-user-shares';
import { userDataKeysTable } from '@app/personal-data';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones (the order of those applied may change). */
export const generationMigrations: Migration[] = [
  ...messagingMigrations,
  generationTables,
  refusedJobs,
  jobTraceContext,
  cancelledJobs,
  userDataKeysTable,
  personalData,
  userShares,
  outboxParkedUntil,
];
