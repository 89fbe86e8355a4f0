import { setTimeout as sleep } from 'node:timers/promises';
import { retry } from '@app/timing';
import { addPartner, removePartner } from '../stack/partners';
import type { StackConfig } from '../stack/stack.config';
import type { History } from './history';
import type { OutsideSystems } from './outside-systems';

/** The partner taken away and added back in every run (beside faults the nemesis draws): `npm run partner:remove`, then `partner:add`. */
export const removedPartner = 'beta';
/** Its history entries' id: apart from the nemesis's, which count from 0. */
const faultId = 1_000_000;

/**
 * Removes the campaign's partner a third into the run and adds it back a while later, as an operator
 * would: its credentials deleted and its grants withdrawn, then made again (a new password, which its
 * outside system is connected with again). Meanwhile its requests are refused at the broker, its users'
 * outcomes get no copy or a parked one, and every other tenant goes on; the checker holds the rest of
 * the run to the usual invariants (partner-invariants.ts leaves out only the copies the removal
 * explains). Recorded in the history as a fault `remove-partner`.
 */
export async function removeAndAddBack(
  stack: StackConfig,
  history: History,
  outside: OutsideSystems,
  durationMs: number,
  log: (line: string) => void,
): Promise<void> {
  await sleep(durationMs * 0.3);
  history.record({ kind: 'fault', at: Date.now(), phase: 'start', id: faultId, fault: 'remove-partner', target: removedPartner });
  log(`partner ${removedPartner} removed`);
  // The nemesis may have the broker down meanwhile: each step is asked again until it is back
  const persistently = (step: string, work: () => Promise<unknown>) =>
    retry(work, {
      attempts: 30,
      delayMs: () => 2000,
      onRetry: (error) => log(`partner ${removedPartner}: ${step} again (${(error as Error).message.split('\n')[0]})`),
    });
  try {
    await persistently('removed', () => removePartner(stack, removedPartner));
    await sleep(Math.min(20_000, durationMs * 0.2));
  } finally {
    await persistently('added', () => addPartner(stack, removedPartner));
    await persistently('connected', () => outside.reconnect(removedPartner));
    history.record({ kind: 'fault', at: Date.now(), phase: 'end', id: faultId, fault: 'remove-partner', target: removedPartner });
    log(`partner ${removedPartner} added back`);
  }
}
