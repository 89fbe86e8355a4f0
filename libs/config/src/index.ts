export * from './service.config';
export * from './log-levels';
export * from './env-reader';
export * from './http-limits.config';
