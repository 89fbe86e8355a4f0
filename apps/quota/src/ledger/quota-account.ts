import type { Knex } from 'knex';
import { LedgerKind, perTaskKinds } from '@app/quota-ledger';
import type { TaskLedger } from './quota.rules';
import { namespaceOf } from '@app/catalogue';
import { Allowances, startingGrants } from '../partners/allowances';
import { lockBudgets, recordDrawn } from '../partners/partner-budgets';

export interface QuotaSummary {
  userId: string;
  balance: number;
  debited: number;
  refunded: number;
}

/**
 * Locks the users' accounts for the rest of the transaction, in key order (two batches never wait on
 * each other in a circle), so that decisions about one user's quota are taken one batch at a time;
 * an account first seen is made, with its starting grant (see Allowances: none without them). Gives
 * each account's stored balance. One statement when every account exists, as it does for every task
 * but a user's first.
 */
export async function lockAccounts(trx: Knex.Transaction, userIds: Iterable<string>, allowances?: Allowances): Promise<Map<string, number>> {
  const ids = [...new Set(userIds)].sort();
  const lock = async (some: string[]) =>
    (
      await trx('quota_accounts')
        .whereIn('user_id', some)
        .orderBy('user_id')
        .forUpdate()
        .select<Array<{ user_id: string; balance: number }>>('user_id', 'balance')
    ).map((row) => [row.user_id, row.balance] as const);
  const balances = new Map(ids.length > 0 ? await lock(ids) : []);
  const missing = ids.filter((id) => !balances.has(id));
  if (missing.length === 0) return balances;
  await openAccounts(trx, missing, allowances);
  // Those made by another transaction meanwhile are waited for like any other holder.
  for (const [id, balance] of await lock(missing)) balances.set(id, balance);
  return balances;
}

/** Makes the accounts of `userIds` that no transaction has made, each with its starting grant on the ledger, drawn from its namespace's budget. */
async function openAccounts(trx: Knex.Transaction, userIds: string[], allowances: Allowances | undefined): Promise<void> {
  const namespaces = userIds.map(namespaceOf).filter((namespace) => namespace !== undefined);
  const budgets = allowances ? await lockBudgets(trx, namespaces, allowances.partnerDefaults) : new Map();
  const grants = allowances ? startingGrants(userIds, allowances, budgets) : new Map<string, number>();
  const created: Array<{ user_id: string; balance: number }> = await trx('quota_accounts')
    .insert(userIds.map((id) => ({ user_id: id, balance: grants.get(id) ?? 0 })))
    .onConflict('user_id')
    .ignore()
    .returning(['user_id', 'balance']);
  const granted = created.filter((row) => row.balance > 0);
  if (granted.length === 0) return;
  await trx('quota_ledger').insert(granted.map((row) => ({ user_id: row.user_id, kind: 'grant' satisfies LedgerKind, amount: row.balance })));
  const drawn = new Map<string, number>();
  for (const row of granted) {
    const namespace = namespaceOf(row.user_id);
    if (namespace !== undefined) drawn.set(namespace, (drawn.get(namespace) ?? 0) + row.balance);
  }
  await recordDrawn(trx, drawn);
}

/** The statement that writes the balances, as decided, back: for a `with` of the caller's; undefined for none. */
export function balancesStored(trx: Knex.Transaction, balances: ReadonlyMap<string, number>): Knex.Raw | undefined {
  if (balances.size === 0) return undefined;
  const rows = [...balances].map(([user_id, balance]) => ({ user_id, balance }));
  return trx.raw(
    `update quota_accounts as a set balance = r.balance
     from jsonb_to_recordset(?::jsonb) as r(user_id text, balance integer) where a.user_id = r.user_id`,
    [JSON.stringify(rows)],
  );
}

/**
 * The balance is stored on the account, moved in the transaction of every ledger row that moves it;
 * what was debited and refunded is added up from the ledger.
 */
export async function summarise(db: Knex | Knex.Transaction, userId: string): Promise<QuotaSummary> {
  const account = await db('quota_accounts').where({ user_id: userId }).first('balance');
  const rows: Array<{ kind: LedgerKind; total: string }> = await db('quota_ledger')
    .where({ user_id: userId })
    .whereIn('kind', ['debit', 'refund'] satisfies LedgerKind[])
    .groupBy('kind')
    .select('kind', db.raw('sum(amount) as total'));
  const total = (kind: LedgerKind) => Number(rows.find((r) => r.kind === kind)?.total ?? 0);
  return { userId, balance: account?.balance ?? 0, debited: total('debit'), refunded: total('refund') };
}

/** What the ledger holds about each task, for quota.rules to decide on, keyed by the task id in lower case. */
export async function loadTaskLedgers(db: Knex | Knex.Transaction, taskIds: Iterable<string>): Promise<Map<string, TaskLedger>> {
  const ids = [...new Set([...taskIds].map((id) => id.toLowerCase()))];
  const rows: Array<{ task_id: string; kind: LedgerKind; user_id: string; amount: number }> = await db('quota_ledger')
    .whereIn('task_id', ids)
    .whereIn('kind', [...perTaskKinds])
    .select('task_id', 'kind', 'user_id', 'amount');
  const ledgers = new Map<string, TaskLedger>(ids.map((id) => [id, { rejected: false, refunded: false, settled: false }]));
  for (const row of rows) {
    const task = ledgers.get(row.task_id)!;
    if (row.kind === 'debit') task.debit = { userId: row.user_id, amount: row.amount };
    if (row.kind === 'rejection') task.rejected = true;
    if (row.kind === 'refund') task.refunded = true;
    if (row.kind === 'settled') task.settled = true;
  }
  return ledgers;
}
