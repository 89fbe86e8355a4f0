/**
 * Talking to the platform's Kafka and schema registry: the client, the event codec, the one-send-at-a-
 * time idempotent producer, topic creation, and the credentials each principal reads from its files.
 */
export { createKafka, fetchWaitMs, kafkaAnswers } from './kafka.client';
export { EventCodec } from './event.codec';
export { countRequests } from './request-count';
export { isDestinationRefused, isTooLarge } from './broker-refusals';
export { IdempotentProducer, UnansweredPartitions, type Placed } from './idempotent-producer';
export { abandonedProvisioningSettled, ensureTopics, type ProvisionLimits, type TopicSpec } from './topics';
export { localKafkaCredentials, localKafkaEnv } from './security/kafka-principals';
export { basicAuthorization, localRegistryCredentials, localRegistryEnv, registryAuthFromEnv, type RegistryCredentials } from './security/registry-credentials';
