import type { Knex } from 'knex';
import { loadTaskLedgers, lockAccounts } from './quota-account';
import type { QuotaBook } from './quota.rules';
import type { Allowances } from '../partners/allowances';

/** The book for events whose user is theirs to name (an acceptance, a timeout): those accounts, and the tasks' ledgers. */
export async function namedUsersBook(trx: Knex.Transaction, events: Array<{ taskId: string; userId: string }>, allowances: Allowances): Promise<QuotaBook> {
  const balances = await lockAccounts(
    trx,
    events.map((event) => event.userId),
    allowances,
  );
  return {
    balances,
    tasks: await loadTaskLedgers(
      trx,
      events.map((event) => event.taskId),
    ),
  };
}

/**
 * The book for events that name a task but not, in a way to trust, whose quota it took (a generation's
 * outcome): the accounts locked are those the tasks' debits were taken from, and the tasks' ledgers are
 * read again under those locks, since a refund or settlement may have been decided meanwhile.
 */
export async function debitedBook(trx: Knex.Transaction, taskIds: string[]): Promise<QuotaBook> {
  const before = await loadTaskLedgers(trx, taskIds);
  const debitedUsers = [...before.values()].flatMap((task) => (task.debit ? [task.debit.userId] : []));
  if (debitedUsers.length === 0) return { balances: new Map(), tasks: before };
  const balances = await lockAccounts(trx, debitedUsers);
  return { balances, tasks: await loadTaskLedgers(trx, taskIds) };
}

/**
 * The book for a cancel: the accounts of the users the events name and of those the tasks' debits
 * were taken from (the same, as tasks names the task's own user), the ledgers read again under the locks.
 */
export async function cancelledTasksBook(trx: Knex.Transaction, events: Array<{ taskId: string; userId: string }>, allowances: Allowances): Promise<QuotaBook> {
  const taskIds = events.map((event) => event.taskId);
  const before = await loadTaskLedgers(trx, taskIds);
  const debitedUsers = [...before.values()].flatMap((task) => (task.debit ? [task.debit.userId] : []));
  const balances = await lockAccounts(trx, [...events.map((event) => event.userId), ...debitedUsers], allowances);
  return { balances, tasks: await loadTaskLedgers(trx, taskIds) };
}
