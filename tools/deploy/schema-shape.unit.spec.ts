import { contractions, SchemaShape } from './schema-shape';

describe('contractions: what a migration does that the release before it trips on', () => {
  const text = { type: 'text', nullable: true, hasDefault: false };
  const before: SchemaShape = { webhooks: { user_id: { type: 'text', nullable: false, hasDefault: false }, secret: text } };

  it('finds nothing when the step only adds a table, a nullable column or a column with a default', () => {
    const after: SchemaShape = {
      webhooks: { ...before.webhooks, secret_sealed: text, attempts: { type: 'integer', nullable: false, hasDefault: true } },
      deliveries: { id: { type: 'bigint', nullable: false, hasDefault: false } },
    };
    expect(contractions(before, after)).toEqual([]);
  });

  it('finds a dropped table and a dropped column', () => {
    expect(contractions(before, {})).toEqual(['table webhooks was dropped or renamed']);
    expect(contractions(before, { webhooks: { user_id: before.webhooks.user_id, secret_sealed: text } })).toEqual([
      'column webhooks.secret was dropped or renamed',
    ]);
  });

  it('finds a changed type, a column made to refuse null, and a new column old inserts cannot fill', () => {
    const after: SchemaShape = {
      webhooks: {
        user_id: { type: 'character varying(64)', nullable: false, hasDefault: false },
        secret: { type: 'text', nullable: false, hasDefault: false },
        url: { type: 'text', nullable: false, hasDefault: false },
      },
    };
    expect(contractions(before, after)).toEqual([
      'column webhooks.user_id changed type from text to character varying(64)',
      'column webhooks.secret now refuses null, with no default',
      'column webhooks.url was added refusing null, with no default',
    ]);
  });
});
