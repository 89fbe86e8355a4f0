export * from './kafka.client';
export * from './event.codec';
export * from './topics';
