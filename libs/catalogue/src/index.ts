export * from './catalogue';
export * from './consumer-groups';
export * from './partners';
