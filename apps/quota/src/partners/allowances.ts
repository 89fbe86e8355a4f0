import { namespaceOf } from '@app/catalogue';

/** A namespace's settings: what each new user of it starts with, and what all of them may draw so. */
export interface BudgetSettings {
  newUserQuota: number;
  drawCap: number;
}

/** A namespace's budget as it stands: its settings, and what its users have drawn from it. */
export interface Budget extends BudgetSettings {
  drawn: number;
}

/**
 * What a new account starts with. An HTTP user (no namespace) gets DEFAULT_QUOTA, as it always has.
 * A user of a namespace — a partner's `acme:…`, the default's `external:…` — is named by an outside
 * system that may invent as many as it likes, so each starts with its namespace's allowance only while
 * the namespace's cap holds; past it a new user starts with nothing, until an admin grants it some.
 */
export interface Allowances {
  defaultQuota: number;
  /** The settings of a namespace that has none of its own. */
  partnerDefaults: BudgetSettings;
}

/**
 * The starting grant of each new user in `newUsers`, in their order, with the budgets of their
 * namespaces as they stand (each drawn on in turn: the first users of a namespace get its allowance,
 * one may get what is left, the rest nothing).
 */
export function startingGrants(newUsers: string[], allowances: Allowances, budgets: ReadonlyMap<string, Budget>): Map<string, number> {
  const left = new Map([...budgets].map(([namespace, budget]) => [namespace, Math.max(0, budget.drawCap - budget.drawn)]));
  return new Map(
    newUsers.map((userId) => {
      const namespace = namespaceOf(userId);
      if (namespace === undefined) return [userId, Math.max(0, allowances.defaultQuota)];
      const budget = budgets.get(namespace);
      const grant = Math.min(budget?.newUserQuota ?? 0, left.get(namespace) ?? 0);
      left.set(namespace, (left.get(namespace) ?? 0) - grant);
      return [userId, grant];
    }),
  );
}
