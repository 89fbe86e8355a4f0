import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import type { Knex } from 'knex';

const logger = new Logger('after-commit');

/**
 * Runs `then` once the transaction has committed (never when it rolls back), outside it: a wake-up
 * for a worker or a clean-up must not see, or act on, what might still be undone. A failure of
 * `then` is its own to report; it never reaches the transaction's caller.
 */
export function afterCommit(trx: Knex.Transaction, then: () => unknown): void {
  trx.executionPromise.then(
    () =>
      Promise.resolve()
        .then(then)
        .catch(letGo('a step after a commit failed; the transaction stands', logger, { level: 'warn' })),
    // Rolled back: the transaction's caller has the error; nothing is to run.
    () => undefined,
  );
}
