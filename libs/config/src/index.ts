export * from './service.config';
export * from './log-levels';
export * from './env-reader';
