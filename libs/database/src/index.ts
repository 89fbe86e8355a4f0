export * from './ensure-database';
export * from './knex';
export * from './migrations';
export * from './after-commit';
export * from './own-session';
export * from './one-statement';
export * from './lock-timeout';
