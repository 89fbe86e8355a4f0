export * from './health.module';
export * from './degradations';
