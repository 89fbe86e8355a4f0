import type { DomainEvent } from '@app/events';
import type { HistoryEntry } from './history';

/** An event as it sits on its topic. */
export interface PlacedEvent {
  event: DomainEvent;
  topic: string;
  partition: number;
  offset: number;
}

/** Everything the checker reads: the history, the topics, and what the services hold. */
export interface Evidence {
  history: HistoryEntry[];
  events: PlacedEvent[];
  /** The copies of outcomes on the partners' own topics (the events above are every other topic's). */
  partnerCopies?: PlacedEvent[];
  undecodable: number;
  /** Each dead letter with the key its original message had. */
  deadLetters: Array<{ topic: string; key: string; errorCode: string; errorMessage: string }>;
  outbox: Array<{ service: string; unpublished: number; parked: number }>;
  /** Every event a producer was told Kafka had written (acks=all), and where, when it was told. */
  acknowledged: Array<{ by: string; eventId: string; topic: string; partition: number | null; offset: number | null }>;
  balances: Array<{ user: string; balance: number }>;
  granted: number;
  /** Each erased user's latest erasure (as GET /users/{userId}/data tells it) and their tasks' inputs as GET /tasks/{id} shows them. */
  /** A replicated database's promotions, as Patroni keeps them (GET /history): each new timeline, when, and who leads it. */
  promotions?: Array<{ timeline: number; at: string; leader: string }>;
  /**
   * Each user's and namespace's open-task count in tasks' database beside its unfinished tasks, when
   * the run has settled (namespaces left out of a rolling deploy: a release before their limits took
   * and gave back none).
   */
  slots?: Array<{ kind: 'user' | 'namespace'; holder: string; counted: number; unfinished: number }>;
  /** Each namespace's budget in quota's database: what it says was drawn, its cap, and the starting grants its users' ledgers hold. */
  budgets?: Array<{ partner: string; drawn: number; cap: number; granted: number }>;
  erasures?: Array<{ user: string; status: string | null; requestedAt: string | null; tasks: Array<{ taskId: string; createdAt: string; input: unknown }> }>;
}

export interface InvariantResult {
  invariant: string;
  meaning: string;
  violations: number;
  examples: string[];
}
