export * from './backoff';
export * from './deadline';
export * from './worker-loop';
export * from './retry';
