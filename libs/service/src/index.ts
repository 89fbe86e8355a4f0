export * from './bootstrap-service';
export * from './service.module';
