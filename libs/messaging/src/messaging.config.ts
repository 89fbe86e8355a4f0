import { EnvReader } from '@app/config';
import { BackoffPolicy } from '@app/timing';

export interface MessagingConfig {
  topicPartitions: number;
  relay: { batchSize: number; maxBatchBytes: number; pollIntervalMs: number; retentionMs: number; parkedRetryMs: number };
  consumer: {
    maxAttempts: number;
    retryBackoff: BackoffPolicy;
    sessionTimeoutMs: number;
    heartbeatIntervalMs: number;
    partitionsConcurrently: number;
    outageMaxDelayMs: number;
    progress: { intervalMs: number; stallAfterMs: number };
    /** How a service's bookkeeping group fetches (see consumerGroupsOf): lazily, in fewer and larger batches. */
    bookkeepingFetch: { minBytes: number; maxWaitMs: number };
    /** How often a consumer that reads more than its handled types' topics (tasks: the partners') looks for new ones. */
    moreTopicsEveryMs: number;
  };
  /** Undefined keeps inbox rows forever (the default): topics are replayable, so the inbox must remember. */
  inboxRetentionMs?: number;
}

/** Messaging settings from the environment, each with a production default; tests shorten them. */
export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  const read = new EnvReader(env, 'messaging');
  const int = (name: string, fallback: number, min = 1) => read.integer(name, fallback, { min });
  return read.done({
    topicPartitions: int('TOPIC_PARTITIONS', 3),
    relay: {
      batchSize: int('OUTBOX_BATCH_SIZE', 100),
      // Under the broker's default message.max.bytes (1 MiB), which bounds each partition's record batch.
      maxBatchBytes: int('OUTBOX_MAX_BATCH_BYTES', 900_000, 1024),
      pollIntervalMs: read.duration('OUTBOX_POLL_INTERVAL', '1s'),
      retentionMs: read.duration('OUTBOX_RETENTION', '168h'),
      // A copy whose destination refused it (a partner removed) is tried again after this, then after twice as long each time, up to 5 min.
      parkedRetryMs: read.duration('OUTBOX_PARKED_RETRY', '5s'),
    },
    consumer: {
      maxAttempts: int('CONSUMER_MAX_ATTEMPTS', 3),
      retryBackoff: { initialMs: read.duration('CONSUMER_RETRY_INITIAL', '200ms'), maxMs: read.duration('CONSUMER_RETRY_MAX', '5s'), jitter: 0.2 },
      // How soon a dead instance's partitions go to another: kafkajs' 30 s is long for a crash.
      sessionTimeoutMs: read.duration('CONSUMER_SESSION_TIMEOUT', '10s'),
      // kafkajs tells a member of a rebalance only in a heartbeat's answer, and the group waits for
      // every member to join again: each restart of another instance held the group up to this long.
      heartbeatIntervalMs: read.duration('CONSUMER_HEARTBEAT_INTERVAL', '500ms'),
      partitionsConcurrently: int('CONSUMER_CONCURRENCY', 3),
      outageMaxDelayMs: read.duration('CONSUMER_OUTAGE_MAX_DELAY', '10s'),
      // Lag read from the broker on this timer; lag without progress this long is a stall (/health, metric, alert).
      progress: { intervalMs: read.duration('CONSUMER_PROGRESS_INTERVAL', '10s'), stallAfterMs: read.duration('CONSUMER_STALL_AFTER', '2m') },
      moreTopicsEveryMs: read.duration('PARTNER_DISCOVERY_INTERVAL', '10s'),
      // What no task waits on waits for a batch to fill or this short wait to end: the critical path's groups fetch at the first byte.
      bookkeepingFetch: { minBytes: int('BOOKKEEPING_FETCH_MIN_BYTES', 65_536), maxWaitMs: read.duration('BOOKKEEPING_FETCH_MAX_WAIT', '200ms') },
    },
    inboxRetentionMs: env.INBOX_RETENTION ? read.duration('INBOX_RETENTION', '0ms') : undefined,
  });
}
