import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';

const logger = new Logger('metrics');

/**
 * The platform's metrics, one set per process (each service is one), on prom-client's default
 * registry, served by GET /metrics. Labels never carry a user, a task or any text from outside.
 */
collectDefaultMetrics();

export const metricsRegistry = register;

/** RED for each HTTP route: rate and errors by status, duration by route. */
export const httpRequestSeconds = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status, and how long they took',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

/** RED for each consumer: every message's end (handled, duplicate, dead-lettered), and how long it took. */
export const consumerMessages = new Histogram({
  name: 'consumer_message_duration_seconds',
  help: 'Messages a consumer finished, by how they ended, and how long each took (retries and outages included)',
  labelNames: ['consumer', 'result'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
});

export const inboxDuplicates = new Counter({
  name: 'inbox_duplicates_total',
  help: 'Events a consumer had already handled (by eventId) and skipped',
  labelNames: ['consumer'] as const,
});

export const retries = new Counter({
  name: 'retries_total',
  help: 'Attempts made again after a transient failure, by kind: consumer (a handler), outage (a dependency down), generation (a model call), webhook',
  labelNames: ['kind'] as const,
});

export const deadLetters = new Counter({
  name: 'dlq_messages_total',
  help: 'Messages sent to a dead-letter topic, by consumer and error code',
  labelNames: ['consumer', 'reason'] as const,
});

export const consumerLag = new Gauge({
  name: 'consumer_lag',
  help: "Messages behind the end of the partition: the broker's high-water mark less the group's committed offset, read on a timer (and after each batch)",
  labelNames: ['topic', 'partition'] as const,
});

/** How long a due generation job waited for a slot (its user's share, or an instance's): fairness, without a label per user. */
export const generationSlotWaitSeconds = new Histogram({
  name: 'generation_slot_wait_seconds',
  help: 'From when a generation job became due to when its attempt started',
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
});

/** How long an assigned partition has had lag with no committed progress: 0 while it moves. */
export const consumerStalledSeconds = new Gauge({
  name: 'consumer_stalled_seconds',
  help: 'How long the partition has had messages to read while its committed offset did not move (0 when it moves or has none)',
  labelNames: ['topic', 'partition'] as const,
});

/**
 * What a task costs in round trips: statements sent to the service's database (begin and commit
 * count: each is a round trip), and the size of what Kafka hands a consumer and the relay sends.
 * The throughput benchmark divides them by the tasks of a run.
 */
export const dbStatements = new Counter({ name: 'db_statements_total', help: 'Statements sent to the database, begin and commit included' });
export const kafkaRequests = new Counter({
  name: 'kafka_requests_total',
  help: 'Requests sent to Kafka brokers by the consumers, producers and admin clients, by API (Fetch, Produce, OffsetCommit, …)',
  labelNames: ['api'] as const,
});
export const consumerBatches = new Counter({ name: 'consumer_batches_total', help: 'Batches Kafka handed the consumers (one partition each)' });
export const consumerBatchMessages = new Counter({ name: 'consumer_batch_messages_total', help: 'Messages in the batches Kafka handed the consumers' });
export const consumerTransactions = new Counter({
  name: 'consumer_transactions_total',
  help: 'Transactions that committed messages together (the batches of one partition, or merged from several)',
});
export const consumerTransactionMessages = new Counter({ name: 'consumer_transaction_messages_total', help: 'Messages those transactions committed' });
export const relayRequests = new Counter({ name: 'relay_requests_total', help: 'Produce requests the outbox relay sent' });
export const relayRequestMessages = new Counter({ name: 'relay_request_messages_total', help: 'Messages in the produce requests the outbox relay sent' });

export const quotaRefunds = new Counter({ name: 'quota_refunds_total', help: 'Quota units given back for failed work' });

export const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts, by result: delivered, retrying, failed (given up)',
  labelNames: ['result'] as const,
});

export const taskEndToEndSeconds = new Histogram({
  name: 'task_end_to_end_seconds',
  help: 'From a task accepted to its outcome, by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
});

/**
 * The outbox backlog, read from the database when scraped: rows not yet published (parked ones
 * included), the age of the oldest that is not parked, and how many are parked.
 */
export function registerOutboxGauges(read: () => Promise<{ pending: number; oldestAgeSeconds: number; parked: number }>): void {
  const backlog = atMostOncePerSecond(read);
  registerReadGauge('outbox_pending', 'Outbox rows not yet published', async () => (await backlog()).pending);
  registerReadGauge(
    'outbox_oldest_age_seconds',
    'Age of the oldest unpublished outbox row that is not parked (0 when none)',
    async () => (await backlog()).oldestAgeSeconds,
  );
  registerReadGauge('outbox_parked', 'Outbox rows parked: too large, or refused by their destination', async () => (await backlog()).parked);
}

/** A gauge read when scraped (the database, say), at most once a second however many scrape it. */
export function registerReadGauge(name: string, help: string, read: () => Promise<number>): void {
  const once = atMostOncePerSecond(read);
  register.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    async collect() {
      const value = await once().catch(letGo(`${name} keeps its last value: reading it failed`, logger));
      if (value !== undefined) this.set(value);
    },
  });
}

/** Concurrent and close scrapes share one read (several gauges from one query, too). */
export function atMostOncePerSecond<T>(read: () => Promise<T>): () => Promise<T> {
  let last: Promise<T> | undefined;
  return () => (last ??= read().finally(() => setTimeout(() => (last = undefined), 1000)));
}

/** A gauge with labels, read when scraped: one value per label set (tasks by state, say). */
export function registerLabelledReadGauge(
  name: string,
  help: string,
  labelNames: string[],
  read: () => Promise<Array<{ labels: Record<string, string>; value: number }>>,
): void {
  const once = atMostOncePerSecond(read);
  register.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    labelNames,
    async collect() {
      const values = await once().catch(letGo(`${name} keeps its last values: reading them failed`, logger));
      if (!values) return;
      this.reset();
      for (const { labels, value } of values) this.set(labels, value);
    },
  });
}
