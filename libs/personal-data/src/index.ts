export * from './data-keys';
export * from './master-keys';
export * from './personal-text';
export { CannotOpen } from './sealing';
export * from './data-key-store';
export * from './personal-data';
