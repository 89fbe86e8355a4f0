import { startTracing } from '@app/tracing';

// Imported first by a benchmark: BENCH_TRACING=on traces its own process as a service would (the
// SDK must patch pg before it loads), so the cost of tracing can be measured beside its absence.
if (process.env.BENCH_TRACING === 'on') startTracing(process.env.OTEL_SERVICE_NAME || 'bench');
