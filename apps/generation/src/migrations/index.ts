import type { Migration } from '@app/database';
import { messagingTables } from '@app/messaging';
import { generationTables } from './001-generation';

/** In order, the outbox and inbox first; append new migrations, never edit applied ones. */
export const generationMigrations: Migration[] = [messagingTables, generationTables];
