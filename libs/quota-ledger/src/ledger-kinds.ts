import type { EventType } from '@app/events';

/**
 * What a row of quota's ledger records. The ledger is the account's history; a balance is the
 * grants less the debits plus the refunds. Quota writes these, and the campaign, the audit and the
 * tests count by them. Migrations keep their own literal lists: history stays as it was.
 */
export const ledgerKinds = ['grant', 'debit', 'refund', 'rejection', 'settled'] as const;
export type LedgerKind = (typeof ledgerKinds)[number];

/** Written at most once per task: what the unique index quota_ledger_one_per_task covers. */
export const perTaskKinds = ['debit', 'refund', 'rejection', 'settled'] as const satisfies readonly LedgerKind[];

/** How a row of each kind moves its user's balance, by its amount. */
export const balanceMove: Record<LedgerKind, -1 | 0 | 1> = { grant: 1, debit: -1, refund: 1, rejection: 0, settled: 0 };

/** The event quota publishes for a row of each kind that tells the others (a grant and a settlement tell no one). */
export const eventOfKind = { debit: 'QuotaDebited', refund: 'QuotaRefunded', rejection: 'QuotaRejected' } as const satisfies Partial<
  Record<LedgerKind, EventType>
>;

/** The ledger kind a quota event reports, if it reports one. */
export function kindOfEvent(eventType: string): LedgerKind | undefined {
  return (Object.keys(eventOfKind) as Array<keyof typeof eventOfKind>).find((kind) => eventOfKind[kind] === eventType);
}
