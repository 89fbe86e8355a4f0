import type { Migration } from '@app/database';
import { tasksTables } from './001-tasks';

/** In order; append new migrations, never edit applied ones. */
export const tasksMigrations: Migration[] = [tasksTables];
