import { EventEmitter } from 'node:events';

/**
 * The in-process hint that wakes the relay within milliseconds of a commit that added outbox rows;
 * the relay's slow poll covers rows written by other processes.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);

export const outboxCommitted = 'committed';
