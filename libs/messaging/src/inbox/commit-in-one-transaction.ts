import type { Knex } from 'knex';
import { inboxEntryOf } from './consumed-message';
import type { DecodedMessage } from './decode-in-order';
import { recordAllInInbox } from './record-in-inbox';
import { HandlerFailure, HandlerDispatcher } from './handler-dispatcher';

/** Which arrivals were new to the inbox, or which one failed them all (the last when no known one). */
export type TransactionOutcome = { firstTimes: boolean[] } | { failure: { index: number; error: unknown } };

/**
 * Arrivals in one transaction: their inbox rows by one statement, then the new ones to their
 * reaction together, in order. Anything that fails rolls them all back.
 */
export async function commitInOneTransaction(knex: Knex, dispatcher: HandlerDispatcher, arrivals: DecodedMessage[]): Promise<TransactionOutcome> {
  try {
    const firstTimes = await knex.transaction(async (trx) => {
      // Which message's row failed, the statement does not say (an event id that is no uuid).
      const firstTimes = await recordAllInInbox(
        trx,
        arrivals.map(({ event, consumed }) => inboxEntryOf(event, consumed)),
      ).catch((error: unknown) => Promise.reject(new HandlerFailure(error, undefined)));
      await dispatcher.dispatchTogether(
        trx,
        arrivals.map((arrival, i) => ({ ...arrival, firstTime: firstTimes[i] })),
      );
      return firstTimes;
    });
    return { firstTimes };
  } catch (error) {
    // A failure at the commit is no known message's fault either.
    if (error instanceof HandlerFailure && error.atFault !== undefined) return { failure: { index: error.atFault, error: error.error } };
    return { failure: { index: arrivals.length - 1, error: undefined } };
  }
}
