import { createKnex } from '@app/database';
import { databaseUrlFor } from '../stack/postgres';
import type { StackConfig } from '../stack/stack.config';
import type { Evidence } from './checked-evidence';
import { partnerDrawCap } from './cluster';

/**
 * Each namespace's budget in quota's database beside what its users' ledgers hold: the starting
 * grants (a grant without an Idempotency-Key: an admin's always has one) of the accounts of that
 * namespace, read in one statement.
 */
export async function partnerBudgets(stack: StackConfig): Promise<NonNullable<Evidence['budgets']>> {
  const db = createKnex(databaseUrlFor(stack, 'taskplatform_quota'), 1, { quiet: true });
  try {
    const { rows } = await db.raw<{ rows: NonNullable<Evidence['budgets']> }>(
      `select b.partner, b.drawn, coalesce(b.draw_cap, ?) as cap,
         coalesce((select sum(l.amount) from quota_ledger l
                   where l.kind = 'grant' and l.grant_key is null and starts_with(l.user_id, b.partner || ':')), 0)::int as granted
       from partner_budgets b order by b.partner`,
      [partnerDrawCap],
    );
    return rows;
  } finally {
    await db.destroy();
  }
}
