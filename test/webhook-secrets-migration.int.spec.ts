import { createKnex, ensureDatabase, migrateToLatest } from '@app/database';
import { loadSecretBox } from '../apps/notification/src/notification.config';
import { notificationMigrations } from '../apps/notification/src/migrations';
import { TestEnv } from './support/test-env';

describe('sealing the webhook secrets stored before', () => {
  const env = new TestEnv();
  afterAll(() => env.dropDatabases(['notification']));

  it('seals a secret stored in clear by the earlier schema, so that it opens to the same secret and is nowhere in clear', async () => {
    // Given a database at the schema before sealing, holding a webhook with its secret in clear
    await ensureDatabase(env.databaseUrl('notification'));
    const knex = createKnex(env.databaseUrl('notification'), 2);
    try {
      const before = notificationMigrations.slice(
        0,
        notificationMigrations.findIndex((m) => m.name === '002-sealed-secrets'),
      );
      await migrateToLatest(knex, before);
      await knex('webhooks').insert({ user_id: 'old-user', url: 'https://example.com/hook', secret: 'whsec_c2VjcmV0LWZyb20tYmVmb3Jl' });

      // When the service migrates to the latest schema
      await migrateToLatest(knex, notificationMigrations);

      // Then the secret is sealed, opens to what it was, and its clear text is gone
      const row = await knex('webhooks').where({ user_id: 'old-user' }).first();
      expect(row).not.toHaveProperty('secret');
      expect(JSON.stringify(row)).not.toContain('c2VjcmV0LWZyb20tYmVmb3Jl');
      expect(loadSecretBox().open(row.secret_sealed)).toBe('whsec_c2VjcmV0LWZyb20tYmVmb3Jl');
    } finally {
      await knex.destroy();
    }
  });
});
