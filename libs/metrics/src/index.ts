export * from './metrics';
export * from './metrics.controller';
export * from './http-metrics.interceptor';
