export * from './dead-letter-store';
export * from './redrive';
