/**
 * The outbox and inbox, as a service uses them: its module, its handlers (which publish through
 * their context), publishing from outside a handler, the tables, the settings, the health.
 * Everything else in the library is its own (dependency-cruiser refuses a deep import); its tests
 * and the relay benchmark reach the parts through `@app/messaging/testing`.
 */
export { KAFKA, MessagingModule, type HandlerSource } from './messaging.module';
export { setBased, type BatchContext, type EventHandlers, type HandlerContext, type HandlersOf } from './inbox/event-handlers';
export { outbox } from './outbox/outbox';
export type { OutboxWrite } from './outbox/add-to-outbox';
export { allMessagingMigrations, messagingMigrations, outboxParkedUntil } from './messaging.migrations';
export { loadMessagingConfig } from './messaging.config';
export { MessagingHealth } from './messaging-health';
