/**
 * A fault applied to a cluster (the brokers, or the replicated database): what it hit, how long it
 * lasts, how to heal it, and `effect`, which asks a node on the healthy side (a broker's Admin API,
 * a Patroni's REST API) whether the fault shows (a leader moved, a broker left the in-sync replicas,
 * the controller moved, a standby was promoted) and says what it saw, or undefined while it does
 * not. A fault that never shows is a fault that was not applied: the checker counts it.
 */
export interface Strike {
  target: string;
  detail: string;
  forMs: number;
  heal: () => Promise<void>;
  effect: () => Promise<string | undefined>;
  /** When the strike began, if striking took a while: a switchover is answered once it is done. */
  struckAt?: number;
}
