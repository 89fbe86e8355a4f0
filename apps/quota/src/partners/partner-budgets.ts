import type { Knex } from 'knex';
import type { Budget, BudgetSettings } from './allowances';

interface BudgetRow {
  partner: string;
  new_user_quota: number | null;
  draw_cap: number | null;
  drawn: number;
}

const budgetOfRow = (row: BudgetRow | undefined, defaults: BudgetSettings): Budget => ({
  newUserQuota: row?.new_user_quota ?? defaults.newUserQuota,
  drawCap: row?.draw_cap ?? defaults.drawCap,
  drawn: row?.drawn ?? 0,
});

/**
 * Locks the budgets of `namespaces` for the rest of the transaction, in name order (a budget first
 * drawn on is made, with the defaults' settings), so that new users of one namespace are given their
 * starting grants one transaction at a time and never together past its cap.
 */
export async function lockBudgets(trx: Knex.Transaction, namespaces: Iterable<string>, defaults: BudgetSettings): Promise<Map<string, Budget>> {
  const names = [...new Set(namespaces)].sort();
  if (names.length === 0) return new Map();
  await trx('partner_budgets')
    .insert(names.map((partner) => ({ partner })))
    .onConflict('partner')
    .ignore();
  const rows: BudgetRow[] = await trx('partner_budgets').whereIn('partner', names).orderBy('partner').forUpdate().select('*');
  return new Map(rows.map((row) => [row.partner, budgetOfRow(row, defaults)]));
}

/** Adds what new users were given to their namespaces' drawn totals (budgets locked by lockBudgets). */
export async function recordDrawn(trx: Knex.Transaction, drawn: ReadonlyMap<string, number>): Promise<void> {
  for (const [partner, amount] of drawn) {
    if (amount > 0)
      await trx('partner_budgets')
        .where({ partner })
        .update({ drawn: trx.raw('drawn + ?', [amount]), updated_at: trx.fn.now() });
  }
}

/** A namespace's budget as it stands, its defaults filled in (one never drawn on has drawn nothing). */
export async function budgetOf(db: Knex, partner: string, defaults: BudgetSettings): Promise<Budget> {
  return budgetOfRow(await db('partner_budgets').where({ partner }).first(), defaults);
}

/** Sets a namespace's settings (those given; `null` gives one back to the default), keeping what was drawn. */
export async function setBudget(db: Knex, partner: string, settings: { [K in keyof BudgetSettings]?: number | null }): Promise<void> {
  const columns = {
    ...(settings.newUserQuota !== undefined && { new_user_quota: settings.newUserQuota }),
    ...(settings.drawCap !== undefined && { draw_cap: settings.drawCap }),
  };
  await db('partner_budgets')
    .insert({ partner, ...columns })
    .onConflict('partner')
    .merge({ ...columns, updated_at: db.fn.now() });
}
