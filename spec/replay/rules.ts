import { decideCancel, evolve, outcomeOf, stateOf } from '@app/task-state';
import { decideAfterAttempt } from '../../apps/generation/src/jobs/attempt-outcome.rules';
import { closedByRefusal } from '../../apps/generation/src/reactions/quota-rejected/record-refusal.rules';
import { closedByCancel } from '../../apps/generation/src/reactions/task-cancelled/stop-cancelled.rules';
import { fateAtDeadline } from '../../apps/generation/src/reactions/task-timed-out/stop-timed-out.rules';
import { onTaskAccepted } from '../../apps/quota/src/reactions/task-accepted/debit.rules';
import { onGenerationFailed } from '../../apps/quota/src/reactions/generation-failed/refund.rules';
import { onGenerationSucceeded } from '../../apps/quota/src/reactions/generation-succeeded/settle.rules';
import { onTaskCancelled } from '../../apps/quota/src/reactions/task-cancelled/refund-cancelled.rules';
import { onTaskTimedOut } from '../../apps/quota/src/reactions/task-timed-out/close-timed-out.rules';

/**
 * The project's pure decision functions that the model's steps replay, one per model action or
 * reaction (the table in docs/reliability.md). Passed as one object so that a test can replace one
 * with a mutant and see the replay catch it.
 */
export const codeRules = {
  // tasks
  evolve,
  stateOf,
  outcomeOf,
  decideCancel,
  // quota
  onTaskAccepted,
  onGenerationSucceeded,
  onGenerationFailed,
  onTaskCancelled,
  onTaskTimedOut,
  // generation
  decideAfterAttempt,
  closedByRefusal,
  closedByCancel,
  fateAtDeadline,
};

export type Rules = typeof codeRules;
