/**
 * What libs/messaging offers, and to whom; everything else in it is its own (dependency-cruiser
 * refuses a deep import).
 */

// A service: its module, its handlers, publishing in its own transaction, its migrations.
export { MessagingModule, type HandlerSource } from './messaging.module';
export { setBased, type BatchContext, type EventHandlers, type HandlerContext } from './inbox/event-handlers';
export { addAllToOutbox, addToOutbox, outboxRowOf, wakeRelay, wakeRelayOnCommit } from './outbox/add-to-outbox';
export { messagingTables } from './messaging.migration';
export { outboxParking, outboxPlaces } from './outbox/outbox-parking.migration';
export { republish } from './outbox/republish';

// Talking to Kafka and the registry: clients, the codec, credentials.
export { createKafka, fetchWaitMs, kafkaAnswers } from './kafka.client';
export { EventCodec } from './event.codec';
export { IdempotentProducer, UnansweredPartitions } from './idempotent-producer';
export { localKafkaCredentials, localKafkaEnv } from './security/kafka-principals';
export { basicAuthorization, localRegistryCredentials, localRegistryEnv, registryAuthFromEnv, type RegistryCredentials } from './security/registry-credentials';
export { abandonedProvisioningSettled, ensureTopics } from './topics';
export { keyCompactionAfterMs, loadMessagingConfig, outsideRequestRetentionMs } from './messaging.config';

// Dead letters and parked outbox rows: what the dlq tool, the console and health read.
export { deadLetterHeaders, deadLetterTopicFor, redriveLogTopic } from './dead-letters';
export { listParkedRows, releaseParkedRows } from './outbox/parked-rows';
export { MessagingHealth } from './messaging-health';

// The mechanism's parts, for its own tests and the relay benchmark.
export { ConsumerRunner } from './inbox/consumer.runner';
export { OutboxRelay, relayLockKey, type RelayOptions } from './outbox/outbox.relay';
export { outboxCommitted, outboxSignal } from './outbox/outbox-signal';
