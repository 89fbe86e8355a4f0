export * from './errors';
export * from './let-go';
