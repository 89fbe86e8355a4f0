/**
 * The mechanism's parts, for the library's own tests and the relay benchmark only (dependency-cruiser
 * refuses this entry to services, libraries and tools): the consumer and the relay run by hand.
 */
export { ConsumerRunner, type ConsumerOptions } from './inbox/consumer.runner';
export { OutboxRelay, relayLockKey, type RelayOptions } from './outbox/outbox.relay';
export { outboxCommitted, outboxSignal } from './outbox/outbox-signal';
export { reactWithoutBroker } from './inbox/react-without-broker';
