export * from './cap-text';
export * from './storable-text';
