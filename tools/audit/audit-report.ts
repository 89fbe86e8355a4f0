/** What the audit finds: which promises were broken, by which task (or user) and which events. */
export type InvariantName =
  | 'ONE_TERMINAL_OUTCOME'
  | 'ONE_DEBIT_PER_TASK'
  | 'NO_REFUND_WITHOUT_DEBIT'
  | 'REFUND_AFTER_FAILED_GENERATION'
  | 'USER_LEDGER_BALANCES'
  | 'ONE_NOTIFICATION_PER_OUTCOME'
  | 'NO_TASK_STUCK_PAST_DEADLINE'
  | 'NO_REFUND_OF_COMPLETED_TASK'
  | 'CANCELLED_TASK_NOT_CHARGED';

export interface Violation {
  invariant: InvariantName;
  /** The task concerned, or the user for USER_LEDGER_BALANCES. */
  subject: string;
  eventIds: string[];
  message: string;
}

export interface AuditReport {
  events: number;
  duplicates: number;
  /** Events whose ids break the platform's rules: its consumers dead-lettered them unread, and so does the audit. */
  refused: number;
  tasks: number;
  inFlight: Array<{ taskId: string; ageMs: number | null }>;
  violations: Violation[];
}
