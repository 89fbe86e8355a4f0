import type { Knex } from 'knex';

/** A write that is part of a statement: an insert, update or delete, built and not run. */
export type Write = Knex.QueryBuilder | Knex.Raw;

/**
 * Runs writes that depend on no other's result as one statement, each a `with` of it, named by its
 * key: one round trip instead of one each, and atomic even outside a transaction. Undefined ones are
 * left out; none at all sends nothing. Two of them must not change the same row (PostgreSQL
 * applies both to one snapshot, and refuses that).
 */
export async function inOneStatement(db: Knex | Knex.Transaction, writes: Record<string, Write | undefined>): Promise<void> {
  const present = Object.entries(writes).filter((entry): entry is [string, Write] => entry[1] !== undefined);
  if (present.length === 0) return;
  const statement = present.reduce<Knex.QueryBuilder>((query, [name, write]) => query.with(name, write), db.queryBuilder());
  await statement.select(db.raw('1'));
}
