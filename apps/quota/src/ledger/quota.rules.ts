/**
 * Quota's money rule, decided from what the ledger holds and nothing else: one unit per task, taken
 * at most once; refused when the balance is short or the task has already timed out or been
 * cancelled; given back at most once, only after a debit, to the user the debit was taken from, and
 * never once the task's generation has succeeded, unless the task was cancelled first. Each reaction's
 * rules (reactions/<event>/*.rules.ts) decide for one task on what this file defines; decideInTurn
 * takes a batch's decisions in order on the book its handler loaded.
 */

/** One task's rows in the ledger (at most one of each kind). */
export interface TaskLedger {
  debit?: { userId: string; amount: number };
  rejected: boolean;
  refunded: boolean;
  settled: boolean;
}

export const untouchedTask: TaskLedger = { rejected: false, refunded: false, settled: false };

export type QuotaDecision =
  | { kind: 'nothing'; because: string }
  | { kind: 'debit'; userId: string; amount: 1; balanceAfter: number }
  | { kind: 'reject'; userId: string; reason: 'INSUFFICIENT_QUOTA' | 'TIMED_OUT' | 'CANCELLED'; balance: number }
  | { kind: 'refund'; userId: string; amount: number; balanceAfter: number }
  | { kind: 'settle'; userId: string };

/** Debited or refused: a task quota has decided on takes no second decision. */
export const alreadyDecided = (task: TaskLedger) => task.debit !== undefined || task.rejected;

/** What a batch's decisions are taken on: the balances of the accounts locked, and the tasks' ledgers. */
export interface QuotaBook {
  balances: Map<string, number>;
  tasks: Map<string, TaskLedger>;
}

/**
 * Decisions for a batch of events, in their order: each is taken by `decide` on the book as the
 * decisions before it left it, so two tasks of one user with one unit left get one debit and one
 * refusal, and a task met twice is decided once. The book is left as the decisions make it.
 */
export function decideInTurn<E extends { taskId: string }>(
  book: QuotaBook,
  events: readonly E[],
  decide: (task: TaskLedger, event: E, balanceOf: (userId: string) => number) => QuotaDecision,
): Array<{ event: E; decision: QuotaDecision }> {
  const balanceOf = (userId: string) => book.balances.get(userId) ?? 0;
  return events.map((event) => {
    const key = event.taskId.toLowerCase();
    const task = book.tasks.get(key) ?? untouchedTask;
    const decision = decide(task, event, balanceOf);
    book.tasks.set(key, afterDecision(task, decision));
    if (decision.kind === 'debit' || decision.kind === 'refund') book.balances.set(decision.userId, decision.balanceAfter);
    return { event, decision };
  });
}

function afterDecision(task: TaskLedger, decision: QuotaDecision): TaskLedger {
  switch (decision.kind) {
    case 'debit':
      return { ...task, debit: { userId: decision.userId, amount: decision.amount } };
    case 'reject':
      return { ...task, rejected: true };
    case 'refund':
      return { ...task, refunded: true };
    case 'settle':
      return { ...task, settled: true };
    case 'nothing':
      return task;
  }
}
