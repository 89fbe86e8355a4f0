export * from './service.config';
export * from './log-levels';
