export * from './bootstrap-service';
export * from './problem-details.filter';
export * from './service.module';
export * from './validate';
