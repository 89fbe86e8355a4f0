import type { Migration } from '@app/database';
import { loadSecretBox } from '../notification.config';

/**
 * Webhook secrets sealed at rest (existing ones sealed in place, the clear column dropped), and room
 * for the secret a rotation replaced, which keeps signing until its grace period ends.
 */
export const sealedSecrets: Migration = {
  name: '002-sealed-secrets',
  // Drops `secret` in the step that seals it: an instance from before still selects it.
  oneWay: 'stop every notification instance of the release before it, then start the new ones',
  async up(knex) {
    const box = loadSecretBox();
    await knex.schema.alterTable('webhooks', (t) => {
      t.text('secret_sealed');
      t.text('previous_secret_sealed');
      t.timestamp('previous_secret_until', { useTz: true });
    });
    for (const row of await knex('webhooks').select('user_id', 'secret')) {
      await knex('webhooks')
        .where({ user_id: row.user_id })
        .update({ secret_sealed: box.seal(row.secret) });
    }
    await knex.schema.alterTable('webhooks', (t) => {
      t.dropColumn('secret');
      t.text('secret_sealed').notNullable().alter();
    });
  },
  /** Back to the code before it, which reads secrets in clear: they are opened again (and the rotated-out one is dropped). */
  async down(knex) {
    const box = loadSecretBox();
    await knex.schema.alterTable('webhooks', (t) => t.text('secret'));
    for (const row of await knex('webhooks').select('user_id', 'secret_sealed')) {
      await knex('webhooks')
        .where({ user_id: row.user_id })
        .update({ secret: box.open(row.secret_sealed) });
    }
    await knex.schema.alterTable('webhooks', (t) => {
      t.dropColumn('secret_sealed');
      t.dropColumn('previous_secret_sealed');
      t.dropColumn('previous_secret_until');
      t.text('secret').notNullable().alter();
    });
  },
};
