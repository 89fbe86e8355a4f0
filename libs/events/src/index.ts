export * from './envelope';
export * from './event-types';
export * from './generated/event-types';
export * from './schemas';
export * from './new-event';
export * from './accepted-request';
export * from './cap-text';
export * from './storable-text';
