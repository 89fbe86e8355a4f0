export * from './start-tracing';
export * from './spans';
export * from './traceparent';
export * from './task-sampler';
