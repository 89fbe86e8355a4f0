/**
 * Quota's money rule, decided from what the ledger holds and nothing else: one unit per task, taken
 * at most once; refused when the balance is short or the task has already timed out or been
 * cancelled; given back at most once, only after a debit, to the user the debit was taken from, and
 * never once the task's generation has succeeded, unless the task was cancelled first. The handlers
 * load, call one of these, and record what it says.
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

const alreadyDecided = (task: TaskLedger) => task.debit !== undefined || task.rejected;

/** The platform accepted the task: debit one unit when the balance allows, refuse it otherwise. */
export function onTaskAccepted(task: TaskLedger, userId: string, balance: number): QuotaDecision {
  if (alreadyDecided(task)) return { kind: 'nothing', because: 'the task was already debited or refused' };
  if (balance < 1) return { kind: 'reject', userId, reason: 'INSUFFICIENT_QUOTA', balance };
  return { kind: 'debit', userId, amount: 1, balanceAfter: balance - 1 };
}

/**
 * The task timed out: one not yet decided is refused, so that its request, if it ever arrives, takes
 * nothing. A debited one is generation's to fail, which then refunds it.
 */
export function onTaskTimedOut(task: TaskLedger, userId: string, balance: number): QuotaDecision {
  if (alreadyDecided(task)) return { kind: 'nothing', because: 'the task was already debited or refused' };
  return { kind: 'reject', userId, reason: 'TIMED_OUT', balance };
}

/**
 * The tasks service cancelled the task: it is the arbiter, and it cancels only a task with no outcome,
 * so the task is never charged. A debit is given back, once (even after a success quota has seen: the
 * success lost the race there); a task not yet decided is refused, so that its request, if it ever
 * arrives, takes nothing. `balanceOf` gives the balance of the debit's user, or of the event's.
 */
export function onTaskCancelled(task: TaskLedger, userId: string, balanceOf: (userId: string) => number): QuotaDecision {
  if (task.debit) {
    if (task.refunded) return { kind: 'nothing', because: 'the task was already refunded' };
    return { kind: 'refund', userId: task.debit.userId, amount: task.debit.amount, balanceAfter: balanceOf(task.debit.userId) + task.debit.amount };
  }
  if (task.rejected) return { kind: 'nothing', because: 'the task was refused, never debited' };
  return { kind: 'reject', userId, reason: 'CANCELLED', balance: balanceOf(userId) };
}

/**
 * Generation failed: give back the debit, once. `debitedBalance` is the balance of the user the debit
 * was taken from; nothing the failure event says about user or amount is used.
 */
export function onGenerationFailed(task: TaskLedger, debitedBalance: number): QuotaDecision {
  if (!task.debit) return { kind: 'nothing', because: 'the task was never debited' };
  if (task.refunded) return { kind: 'nothing', because: 'the task was already refunded' };
  if (task.settled) return { kind: 'nothing', because: 'the task’s generation succeeded' };
  return { kind: 'refund', userId: task.debit.userId, amount: task.debit.amount, balanceAfter: debitedBalance + task.debit.amount };
}

/** Generation succeeded: the debit stands for good, whatever failure may be claimed later. */
export function onGenerationSucceeded(task: TaskLedger): QuotaDecision {
  if (!task.debit) return { kind: 'nothing', because: 'the task was never debited' };
  if (task.settled) return { kind: 'nothing', because: 'the task was already settled' };
  return { kind: 'settle', userId: task.debit.userId };
}

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
