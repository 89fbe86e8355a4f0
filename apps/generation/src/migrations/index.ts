import type { Migration } from '@app/database';
import { generationTables } from './001-generation';

/** In order; append new migrations, never edit applied ones. */
export const generationMigrations: Migration[] = [generationTables];
