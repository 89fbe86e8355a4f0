export * from './start-tracing';
export * from './spans';
export * from './traceparent';
