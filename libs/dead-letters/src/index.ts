/**
 * Dead letters and parked outbox rows: their format (written by the messaging library's delivery),
 * reading them, re-driving them, and releasing parked rows; what the dlq tool, the console and the
 * outbox endpoint use.
 */
export { deadLetterHeaders, deadLetterMessage, isDeadLetterHeader, withoutValue, type FailedDelivery } from './dead-letter-format';
export * from './dead-letter-store';
export * from './redrive';
export * from './redrive-log';
export { listParkedRows, releaseParkedRows, type ParkedRow } from './parked-rows';
export { RedriveLogTail, type RedriveLogView } from './redrive-log-tail';
