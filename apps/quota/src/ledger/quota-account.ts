import type { Knex } from 'knex';
import type { TaskLedger } from './quota.rules';

export interface QuotaSummary {
  userId: string;
  balance: number;
  debited: number;
  refunded: number;
}

export type LedgerKind = 'grant' | 'debit' | 'refund' | 'rejection' | 'settled';

/**
 * Locks the user's account for the rest of the transaction, so that decisions about one user's
 * quota are taken one at a time, and sums its ledger up.
 */
export async function lockAccount(trx: Knex.Transaction, userId: string, defaultQuota: number): Promise<QuotaSummary> {
  await holdAccount(trx, userId, defaultQuota);
  return summarise(trx, userId);
}

/**
 * Locks the user's account, creating it first (with its default grant) on first sight: one
 * statement when the account exists, as it does for every task but a user's first.
 */
export async function holdAccount(trx: Knex.Transaction, userId: string, defaultQuota: number): Promise<void> {
  const lock = () => trx('quota_accounts').where({ user_id: userId }).forUpdate().first('user_id');
  if (await lock()) return;
  const created = await trx('quota_accounts').insert({ user_id: userId }).onConflict('user_id').ignore().returning('user_id');
  if (created.length === 1 && defaultQuota > 0) {
    await trx('quota_ledger').insert({ user_id: userId, kind: 'grant', amount: defaultQuota });
  }
  // Made by another transaction meanwhile: wait for it like any other holder.
  if (created.length === 0) await lock();
}

/** The balance is never stored: it is what the ledger adds up to. */
export async function summarise(db: Knex | Knex.Transaction, userId: string): Promise<QuotaSummary> {
  const rows: Array<{ kind: LedgerKind; total: string }> = await db('quota_ledger')
    .where({ user_id: userId })
    .groupBy('kind')
    .select('kind', db.raw('sum(amount) as total'));
  const total = (kind: LedgerKind) => Number(rows.find((r) => r.kind === kind)?.total ?? 0);
  return { userId, balance: total('grant') - total('debit') + total('refund'), debited: total('debit'), refunded: total('refund') };
}

/** What the ledger holds about one task, for quota.rules to decide on. */
export async function loadTaskLedger(db: Knex | Knex.Transaction, taskId: string): Promise<TaskLedger> {
  const rows: Array<{ kind: LedgerKind; user_id: string; amount: number }> = await db('quota_ledger')
    .where({ task_id: taskId })
    .select('kind', 'user_id', 'amount');
  const debit = rows.find((r) => r.kind === 'debit');
  const has = (kind: LedgerKind) => rows.some((r) => r.kind === kind);
  return {
    debit: debit ? { userId: debit.user_id, amount: debit.amount } : undefined,
    rejected: has('rejection'),
    refunded: has('refund'),
    settled: has('settled'),
  };
}
