/**
 * Administering the platform's Kafka and registry, for the tools, the stack and the tests (never a
 * service, whose principal creates nothing): topics and ACLs, schema registration, reading topics to
 * their end.
 */
export * from './provision';
export * from './register-schemas';
export * from './read-to-end';
export * from './provisioning.config';
export * from './partners';
export * from './read-range';
