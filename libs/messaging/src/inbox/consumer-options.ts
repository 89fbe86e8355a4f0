import { BackoffPolicy } from '@app/timing';
import type { EventType } from '@app/events';
import { EventHandlers } from './event-handlers';
import { ProgressOptions } from './consumer-progress';

export interface ConsumerOptions {
  /** The consumer's name: the inbox's `consumer` column, and (behind the topic prefix) its group id. */
  name: string;
  handlers: EventHandlers;
  /**
   * Its consumer group behind the topic prefix, when not `name`: a second group of the same service
   * (its bookkeeping, see consumerGroupsOf) that reads only `reads`, shares the service's inbox (by
   * name) and dead letters, leaves re-drive requests to the service's own group, and first starts
   * where that group left its topics rather than at their beginning.
   */
  group?: string;
  /** The handled types it reads; every handled type when absent. */
  reads?: EventType[];
  /** A lazy fetch: answered once `minBytes` wait or `maxWaitMs` ends (by default at the first byte, waiting up to 1 s). */
  fetch?: { minBytes: number; maxWaitMs: number };
  /** In-place attempts of a failing handler before its message is dead-lettered. */
  maxAttempts: number;
  retryBackoff: BackoffPolicy;
  topicPartitions: number;
  sessionTimeoutMs?: number;
  /** How soon a member hears of a rebalance (kafkajs tells it only in a heartbeat's answer). */
  heartbeatIntervalMs?: number;
  /** Partitions processed at once, so that one waiting partition does not hold up the others. */
  partitionsConcurrently?: number;
  /** How long, at most, between two tries while a dependency is down. */
  outageMaxDelayMs?: number;
  /** Create missing topics (an admin's client, in tests); a service's principal only checks they exist. */
  createTopics?: boolean;
  /** How often lag is read from the broker, and how long lag without progress makes a stall. */
  progress?: ProgressOptions;
  /**
   * Topics read besides those of the handled types (a partner's requests): asked at every start and
   * every `moreTopicsEveryMs` after; when they change, the consumer joins again with them.
   */
  moreTopics?: () => Promise<string[]>;
  moreTopicsEveryMs?: number;
}

/** Where the consumer stands, for /health: only `joined` means it is doing its work. */
export type ConsumerStatus = 'stopped' | 'starting' | 'joined' | 'rebalancing' | 'crashed';
