export * from './ensure-database';
export * from './knex';
export * from './migrations';
export * from './after-commit';
