import type { Migration } from '@app/database';
import { notificationTables } from './001-notification';

/** In order; append new migrations, never edit applied ones. */
export const notificationMigrations: Migration[] = [notificationTables];
