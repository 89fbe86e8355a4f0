import type { BrokerFaultKind } from './broker-faults';
import type { DatabaseFaultKind } from './database-faults';

/**
 * The faults the nemesis applies, and how often each is drawn: the services' and the stack's on
 * every run, the single broker's when there is one broker (a cluster draws broker-faults.ts's).
 */
export type FaultKind =
  | 'kill-instance'
  | 'pause-instance'
  | 'kill-broker'
  | 'crash-postgres'
  | 'read-only-database'
  | 'blackhole-postgres'
  | 'kill-registry'
  | 'kill-model'
  | BrokerFaultKind
  | DatabaseFaultKind;

export const serviceFaultWeights: Array<readonly [FaultKind, number]> = [
  ['kill-instance', 4],
  ['pause-instance', 2],
  ['crash-postgres', 2],
  ['read-only-database', 2],
  ['blackhole-postgres', 1],
  ['kill-registry', 1],
  ['kill-model', 1],
];

/** One broker: it is killed or paused. A cluster: the faults of broker-faults.ts. */
export const singleBrokerWeights: Array<readonly [FaultKind, number]> = [
  ['kill-broker', 2],
  ['pause-broker', 1],
];

/**
 * A replicated database: its own faults beside the others (crash-postgres then crashes the primary's
 * PostgreSQL, which its Patroni restarts; blackhole-postgres stops HAProxy, the database's address).
 */
// Also the first strikes of every run on a replicated database, in this order (nemesis.ts).
export const replicatedDatabaseWeights: Array<readonly [FaultKind, number]> = [
  ['failover-postgres', 2],
  ['switchover-postgres', 1],
];
