import { Command } from 'commander';
import { traceparentFor } from '@app/tracing';
import { loadServiceConfig } from '@app/config';
import { createKnex } from '@app/database';
import { newEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { loadMasterKeys, rewrapStoredKeys } from '@app/personal-data';

/**
 * `npm run keys:rewrap` — master key rotation's middle step (docs/privacy.md): with MASTER_KEYS_FILE
 * naming the new key current and the old one still present, every data key the tasks service keeps
 * is wrapped again under the new key, and sent on as UserDataKey (through the tasks service's
 * outbox: its relay publishes them), so that generation's copies and the compacted keys' topic
 * follow. Once generation has them (its consumer caught up), the old key can leave the file.
 */
const program = new Command('keys:rewrap').action(async () => {
  const master = loadMasterKeys();
  const knex = createKnex(loadServiceConfig('tasks').databaseUrl, 1, { quiet: true });
  try {
    const rewrapped = await knex.transaction(async (trx) => {
      const keys = await rewrapStoredKeys(trx, master);
      const events = keys.map((key) =>
        newEvent('UserDataKey', { wrappedKey: key.wrapped }, { taskId: key.keyId, userId: key.userId, correlationId: key.keyId, causationId: null }, 'tasks'),
      );
      await outbox.addAll(
        trx,
        events.map((event) => ({ event, traceparent: traceparentFor(event.correlationId) })),
      );
      return keys.length;
    });
    process.stdout.write(`${rewrapped} data key(s) rewrapped under master key ${master.current}, and sent on to generation\n`);
  } finally {
    await knex.destroy();
  }
});

void program.parseAsync();
