import type { Knex } from 'knex';

/** One column as an old instance's statements meet it. */
export interface ColumnShape {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** A database's tables and columns (knex's own bookkeeping aside): what the previous release reads and writes. */
export type SchemaShape = Record<string, Record<string, ColumnShape>>;

export async function schemaShape(knex: Knex): Promise<SchemaShape> {
  const { rows } = await knex.raw<{
    rows: Array<{ table_name: string; column_name: string; type: string; is_nullable: 'YES' | 'NO'; column_default: string | null; is_identity: 'YES' | 'NO' }>;
  }>(`
    select c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) as type, c.is_nullable, c.column_default, c.is_identity
    from information_schema.columns c
    join pg_attribute a on a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass and a.attname = c.column_name
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and c.table_name not like 'knex\\_%'
    order by c.table_name, c.ordinal_position`);
  const shape: SchemaShape = {};
  for (const row of rows) {
    shape[row.table_name] ??= {};
    shape[row.table_name][row.column_name] = {
      type: row.type,
      nullable: row.is_nullable === 'YES',
      hasDefault: row.column_default !== null || row.is_identity === 'YES',
    };
  }
  return shape;
}

/**
 * What a migration did that an instance of the release before it may trip on while both run (a
 * rolling deploy): a table or column it reads is gone (dropped or renamed), a column's type changed,
 * a column it may leave out of an insert now refuses null, or a table it inserts into gained a
 * column that refuses null and has no default. Empty when the step only expanded the schema.
 */
export function contractions(before: SchemaShape, after: SchemaShape): string[] {
  const found: string[] = [];
  for (const [table, columns] of Object.entries(before)) {
    if (!after[table]) {
      found.push(`table ${table} was dropped or renamed`);
      continue;
    }
    for (const [column, was] of Object.entries(columns)) {
      const now = after[table][column];
      if (!now) found.push(`column ${table}.${column} was dropped or renamed`);
      else if (now.type !== was.type) found.push(`column ${table}.${column} changed type from ${was.type} to ${now.type}`);
      else if (was.nullable && !now.nullable && !now.hasDefault) found.push(`column ${table}.${column} now refuses null, with no default`);
      else if (was.hasDefault && !now.hasDefault && !now.nullable) found.push(`column ${table}.${column} lost its default and refuses null`);
    }
    for (const [column, now] of Object.entries(after[table])) {
      if (!columns[column] && !now.nullable && !now.hasDefault) found.push(`column ${table}.${column} was added refusing null, with no default`);
    }
  }
  return found;
}
