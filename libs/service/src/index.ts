export * from './bootstrap-service';
export * from './problem-details.filter';
export * from './service.module';
export * from './validate';
export * from './logging';
export * from './auth.guard';
export * from './authorize';
export * from './request-hygiene.interceptor';
