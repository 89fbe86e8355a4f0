/**
 * Whether tasks adopts an outside TaskRequested, decided from what it has loaded and nothing else.
 * The payload is trusted for nothing but its content: a request for a task that already exists
 * changes nothing, whoever it claims to come from.
 */

/** What tasks already knows of the request's taskId. */
export type TaskSeen =
  | 'new'
  /** A request tasks wrote itself under the former scheme (it is in the timeline), not yet accepted. */
  | 'own-request-unaccepted'
  /** Any other request for an existing task: already accepted, or not ours. */
  | 'known';

/** The request's idempotency key: absent, free, or held by an earlier request (same content or not). */
export type KeyHolder = 'no-key' | 'free' | 'same-request' | 'other-request';

export interface AdoptionFacts {
  task: TaskSeen;
  /** The code POST /tasks would refuse the input with (INVALID_INPUT, INPUT_TOO_LARGE, ...), if any. */
  inputRefusal?: string;
  openTasks: number;
  maxOpenTasks: number;
  key: KeyHolder;
}

export type Adoption =
  | { kind: 'ignore' }
  /** Re-issue TaskAccepted for a request accepted under the former scheme (the upgrade path). */
  | { kind: 'accept-again' }
  | { kind: 'reject'; reason: string }
  /** Adopt it: claim its key (when it has one), join the timeline, publish TaskAccepted. */
  | { kind: 'accept' };

export function decideAdoption(facts: AdoptionFacts): Adoption {
  if (facts.task === 'own-request-unaccepted') return { kind: 'accept-again' };
  if (facts.task === 'known') return { kind: 'ignore' };
  if (facts.inputRefusal) return { kind: 'reject', reason: facts.inputRefusal };
  if (facts.openTasks >= facts.maxOpenTasks) return { kind: 'reject', reason: 'TOO_MANY_OPEN_TASKS' };
  if (facts.key === 'same-request') return { kind: 'reject', reason: 'DUPLICATE' };
  if (facts.key === 'other-request') return { kind: 'reject', reason: 'KEY_REUSED' };
  return { kind: 'accept' };
}
