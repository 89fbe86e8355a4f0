export * from './ledger-kinds';
