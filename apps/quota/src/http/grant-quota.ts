import { LedgerKind } from '@app/quota-ledger';
import { HttpStatus, UnprocessableEntityException } from '@nestjs/common';
import type { Knex } from 'knex';
import { balancesStored, lockAccounts, QuotaSummary, summarise } from '../ledger/quota-account';
import type { Allowances } from '../partners/allowances';

/** What QuotaDebited's and QuotaRefunded's Avro `int` balances can carry. */
export const maxBalance = 2 ** 31 - 1;

export interface GrantResult {
  status: number;
  body: QuotaSummary;
  replayed: boolean;
}

/**
 * Adds `amount` to the user's quota under an Idempotency-Key: the same key and amount again gets the
 * first answer and writes nothing; the same key with another amount is a 422. A grant that would take
 * the balance past what the events can carry is refused (422), since a balance past 2^31 would break
 * every later QuotaDebited of that user.
 */
export async function grantQuota(knex: Knex, userId: string, amount: number, key: string, allowances: Allowances): Promise<GrantResult> {
  return knex.transaction(async (trx) => {
    const balance = (await lockAccounts(trx, [userId], allowances)).get(userId)!;
    const earlier = await trx('quota_ledger').where({ user_id: userId, grant_key: key }).first();
    if (earlier) {
      if (earlier.amount !== amount)
        throw new UnprocessableEntityException(`Idempotency-Key "${key}" was already used for a grant of ${earlier.amount}, not ${amount}`);
      return { status: HttpStatus.CREATED, body: earlier.grant_answer as QuotaSummary, replayed: true };
    }
    if (balance + amount > maxBalance) {
      throw new UnprocessableEntityException(`a grant of ${amount} would take ${userId}'s balance past ${maxBalance}, more than the events can carry`);
    }
    const [row] = await trx('quota_ledger')
      .insert({ user_id: userId, kind: 'grant' satisfies LedgerKind, amount, grant_key: key })
      .returning('id');
    await balancesStored(trx, new Map([[userId, balance + amount]]));
    const answer = await summarise(trx, userId);
    await trx('quota_ledger')
      .where({ id: row.id })
      .update({ grant_answer: JSON.stringify(answer) });
    return { status: HttpStatus.CREATED, body: answer, replayed: false };
  });
}
