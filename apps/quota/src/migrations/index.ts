import type { Migration } from '@app/database';
import { quotaTables } from './001-quota';

/** In order; append new migrations, never edit applied ones. */
export const quotaMigrations: Migration[] = [quotaTables];
