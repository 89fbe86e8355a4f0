export * from './task-state.rules';
