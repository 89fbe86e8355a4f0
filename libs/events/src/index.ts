export * from './envelope';
export * from './event-types';
export * from './schemas';
