export * from './event-types';
export * from './generated/event-types';
export * from './schemas';
export * from './new-event';
export * from './accepted-request';
export * from './envelope-rules';
