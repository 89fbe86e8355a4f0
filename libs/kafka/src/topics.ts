import { letGo } from '@app/failures';
import { Logger } from '@nestjs/common';
import { Admin, ConfigResourceTypes, Kafka } from 'kafkajs';
import { DeadlineExceeded, retry, withDeadline } from '@app/timing';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TopicSpec {
  topic: string;
  partitions?: number;
  /**
   * How long its records are kept; unset: forever (-1), so that it can be replayed. A topic given a
   * bound has it applied when it already exists too.
   */
  retentionMs?: number;
  /**
   * Compacted (one record kept per key) rather than kept whole, segments rolled after this many ms so
   * that the cleaner reaches what a newer record replaced (the keys' topic: an erased key's bytes go).
   */
  compactAfterMs?: number;
  /**
   * The largest record it takes (max.message.bytes), applied when it already exists too; unset: the
   * broker's. Request topics take far less than the dead-letter topics, so a letter always fits.
   */
  maxMessageBytes?: number;
}

export interface ProvisionLimits {
  /** How long one attempt (connect, list, create, wait for leaders) may take. */
  attemptMs: number;
  attempts: number;
}

const logger = new Logger('topics');
const defaultLimits: ProvisionLimits = { attemptMs: 15_000, attempts: 4 };

/**
 * Creates the topics that are missing (or, with `create: false`, fails naming them), waits until every partition has a leader, and leaves
 * existing topics as they are but for a bounded retention. Event topics keep everything
 * (retention.ms=-1) so that they can be replayed for audits; those that carry personal data in
 * plaintext (outside requests) keep it for a bounded time. Each attempt has a deadline and uses a fresh admin client: on a busy shared
 * broker a kafkajs admin was seen to wait forever while connecting or listing topics.
 */
export async function ensureTopics(kafka: Kafka, topics: TopicSpec[], defaultPartitions = 3, limits = defaultLimits, { create = true } = {}): Promise<void> {
  await retry(() => provisionOnce(kafka, topics, defaultPartitions, limits, create), {
    attempts: limits.attempts,
    retryable: (error) => error instanceof DeadlineExceeded,
    onRetry: (error, attempt) => logger.warn(`${(error as Error).message} (attempt ${attempt} of ${limits.attempts}); trying again with a new client`),
  });
}

/** One attempt, with a client of its own, given up at its deadline. */
async function provisionOnce(kafka: Kafka, topics: TopicSpec[], defaultPartitions: number, limits: ProvisionLimits, create: boolean): Promise<void> {
  const admin = kafka.admin();
  // Leaders get a little less than the attempt, so that their own error is the one reported.
  const leadersMs = Math.max(100, limits.attemptMs - 2_000);
  const work = provision(admin, topics, defaultPartitions, leadersMs, create);
  try {
    await withDeadline(work, limits.attemptMs, 'provisioning topics');
  } finally {
    // A stuck client may not disconnect either: do not wait for it. Its connect may still succeed
    // later (the broker wakes up) and would then stay open for good: disconnect it again once its
    // abandoned work has settled.
    const closing = letGo('the provisioning client is closed whatever the broker answers', logger);
    void admin.disconnect().catch(closing);
    // The work's own failure reached the caller through withDeadline above.
    const settled = work.catch(letGo('abandoned provisioning ended', logger)).then(() => admin.disconnect().catch(closing));
    abandoned.add(settled);
    void settled.finally(() => abandoned.delete(settled));
  }
}

/** The work of every attempt, until it has settled and let go of its client (given up at its deadline, it may go on). */
const abandoned = new Set<Promise<void>>();

/**
 * Resolves once every attempt given up so far has settled and let go of its client: for a caller that
 * must know nothing of it is still running (a test about to end; the broker answering again).
 */
export async function abandonedProvisioningSettled(): Promise<void> {
  await Promise.all([...abandoned]);
}

async function provision(admin: Admin, topics: TopicSpec[], defaultPartitions: number, leadersMs: number, create: boolean): Promise<void> {
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.topic));
  if (missing.length > 0 && !create) {
    // A service creates nothing (its principal may not): an administrator provisions the topics.
    throw new Error(`topics missing or not visible to this principal: ${missing.map((t) => t.topic).join(', ')} (made by npm run stack:up)`);
  }
  if (missing.length > 0) {
    const { replicationFactor, minInSync } = replicationFor((await admin.describeCluster()).brokers.length);
    // Not kafkajs' waitForLeaders: under KRaft its first metadata request can race the new
    // topic and fail with UNKNOWN_TOPIC_OR_PARTITION instead of retrying.
    await admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((t) => ({
        topic: t.topic,
        numPartitions: t.partitions ?? defaultPartitions,
        replicationFactor,
        configEntries: [...topicConfig(t.retentionMs ?? -1, minInSync), ...compaction(t.compactAfterMs), ...sizeLimit(t.maxMessageBytes)],
      })),
    });
  }
  await alignSettings(
    admin,
    topics.filter((t) => existing.has(t.topic) && (t.retentionMs !== undefined || t.maxMessageBytes !== undefined)),
  );
  await waitForLeaders(
    admin,
    topics.map((t) => t.topic),
    leadersMs,
  );
}

function topicConfig(retentionMs: number, minInSync: number | string) {
  return [
    { name: 'retention.ms', value: String(retentionMs) },
    { name: 'min.insync.replicas', value: String(minInSync) },
    { name: 'unclean.leader.election.enable', value: 'false' },
  ];
}

function compaction(segmentMs: number | undefined) {
  if (segmentMs === undefined) return [];
  return [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'segment.ms', value: String(segmentMs) },
    { name: 'min.cleanable.dirty.ratio', value: '0.01' },
  ];
}

function sizeLimit(maxMessageBytes: number | undefined) {
  return maxMessageBytes === undefined ? [] : [{ name: 'max.message.bytes', value: String(maxMessageBytes) }];
}

/** A setting given to the topic itself (not the broker's, not a default): what AlterConfigs must write back. */
const topicOwnSetting = 1; // kafkajs's ConfigSource.TOPIC_CONFIG

/**
 * Existing topics whose retention or record size limit the specs set differently get it.
 * AlterConfigs replaces a topic's whole set of settings: every setting of its own (the in-sync
 * minimum, a compaction) is written back with the changed ones.
 */
async function alignSettings(admin: Admin, topics: TopicSpec[]): Promise<void> {
  if (topics.length === 0) return;
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.topic })),
  });
  const changes = topics.flatMap((t) => {
    const entries = resources.find((r) => r.resourceName === t.topic)?.configEntries ?? [];
    const own = new Map(entries.filter((c) => c.configSource === topicOwnSetting).map((c) => [c.configName, c.configValue]));
    const wanted = new Map<string, string>(
      [...(t.retentionMs === undefined ? [] : [{ name: 'retention.ms', value: String(t.retentionMs) }]), ...sizeLimit(t.maxMessageBytes)].map((c) => [
        c.name,
        c.value,
      ]),
    );
    const differs = [...wanted].some(([name, value]) => own.get(name) !== value);
    return differs ? [{ topic: t.topic, settings: new Map([...own, ...wanted]) }] : [];
  });
  if (changes.length === 0) return;
  await admin.alterConfigs({
    validateOnly: false,
    resources: changes.map(({ topic, settings }) => ({
      type: ConfigResourceTypes.TOPIC,
      name: topic,
      configEntries: [...settings].map(([name, value]) => ({ name, value })),
    })),
  });
}

/**
 * Three copies of every topic where the cluster has three brokers or more, and a write (acks=all)
 * needs two of them: one broker may be lost without losing or refusing a write. A smaller cluster
 * (one development broker) keeps what it can.
 */
export function replicationFor(brokers: number): { replicationFactor: number; minInSync: number } {
  const replicationFactor = Math.max(1, Math.min(3, brokers));
  return { replicationFactor, minInSync: replicationFactor >= 3 ? 2 : 1 };
}

async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      if (metadata.length === topics.length && metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    await sleep(100);
  }
}
