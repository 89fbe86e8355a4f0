import { startTracing } from '@app/tracing';

// Imported first by main.ts: the SDK must patch http before anything loads it.
startTracing('console');
