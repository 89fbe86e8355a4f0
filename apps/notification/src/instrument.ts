import { startTracing } from '@app/tracing';

// Imported first by main.ts: the SDK must patch http and pg before anything loads them.
startTracing('notification');
