import { noFacts, TaskFacts } from '@app/task-state';
import type { DomainEvent } from '@app/events';
import type { JobStatus } from '../../apps/generation/src/jobs/job-statuses';
import type { ModelOutcome } from '../../apps/generation/src/model/model-outcome.rules';
import { decideInTurn, QuotaBook, QuotaDecision, TaskLedger, untouchedTask } from '../../apps/quota/src/ledger/quota.rules';
import type { TraceState } from './itf';
import type { Rules } from './rules';

/** The model's world as the ITF trace holds it (spec/choreography.qnt, type World). */
export interface World {
  log: Array<{ kind: string; attempt: number; code: string }>;
  step: { actor: string; kind: string; decision: string; attempt: number; answer: string };
  outcomes: string[];
  balance: number;
  job: string;
  attempt: number;
}

export interface Disagreement {
  index: number;
  action: string;
  step: World['step'];
  model: string;
  code: string;
}

/** The situations a replay met, so that a test can tell a mutant went unexercised from one that was caught. */
export type Coverage = Record<'permanentAnswer' | 'cancelAfterOutcome' | 'failureAfterRefund' | 'steps', number>;

const user = 'user-1';
const task = 'task-1';
const answers: Record<string, ModelOutcome> = {
  ok: { ok: true, content: 'report' },
  transient: { ok: false, code: 'MODEL_UNAVAILABLE', retriable: true, message: 'answered 503' },
  permanent: { ok: false, code: 'MODEL_REJECTED', retriable: false, message: 'answered 400' },
};

/** The domain event a model event stands for, with what the decision functions read of it. */
function domainEvent(e: { kind: string; attempt: number; code: string }): DomainEvent {
  const fields: Record<string, unknown> = { eventType: e.kind, taskId: task, userId: user };
  if (e.kind === 'QuotaRejected') Object.assign(fields, { reason: e.code, balance: 0 });
  if (e.kind === 'GenerationStarted' || e.kind === 'GenerationRetryScheduled')
    Object.assign(fields, { attempt: e.attempt, errorCode: 'MODEL_UNAVAILABLE', reason: '' });
  if (e.kind === 'GenerationSucceeded') Object.assign(fields, { attempt: e.attempt, reportRef: 'report' });
  if (e.kind === 'GenerationFailed') Object.assign(fields, { attempts: e.attempt, errorCode: e.code, reason: e.code });
  if (e.kind === 'TaskCancelled') Object.assign(fields, { cancelledBy: user });
  return fields as unknown as DomainEvent;
}

/**
 * Replays one trace of the model against the code: at every step where the code has a pure decision
 * for what the model did, the code decides on its own state (the task's facts folded by `evolve`,
 * quota's book as its decisions left it, the job as the model runs it) and must decide what the
 * model decided. Duplicates turned away by the inbox, the user's and the clock's steps, and a lost
 * model answer have no decision to compare.
 */
export function replayTrace(trace: Array<TraceState<World>>, rules: Rules, coverage: Coverage): Disagreement[] {
  const found: Disagreement[] = [];
  let facts: TaskFacts = noFacts;
  let book: QuotaBook | undefined;
  for (const [index, { world, action }] of trace.entries()) {
    const { step } = world;
    if (index === 0) {
      book = { balances: new Map([[user, world.balance]]), tasks: new Map([[task, untouchedTask]]) };
      continue;
    }
    const before = trace[index - 1].world;
    const compare = (model: string, code: string) => void (model !== code && found.push({ index, action, step, model, code }));
    const event = { kind: step.kind, attempt: step.attempt, code: world.log.find((e) => e.kind === step.kind && e.attempt === step.attempt)?.code ?? '' };
    coverage.steps++;
    if (action === 'modelAnswers') {
      if (step.answer === 'permanent' && before.attempt <= 3) coverage.permanentAnswer++;
      compare(step.decision, rules.decideAfterAttempt(answers[step.answer], before.attempt, [1, 1, 1], 0).kind);
    } else if (action !== 'deliver' && action !== 'redeliver') {
      continue; // the user, the clock, a retry falling due, a lost answer: no decision of the code's
    } else if (step.decision === 'duplicate' || step.actor === 'notification') {
      continue;
    } else if (step.actor === 'tasks' && step.kind === 'TaskCancelRequested') {
      if (before.outcomes.length > 0) coverage.cancelAfterOutcome++;
      const decision = rules.decideCancel(facts);
      compare(step.decision, decision);
      if (decision === 'cancel') facts = rules.evolve(facts, domainEvent({ kind: 'TaskCancelled', attempt: 0, code: '' }));
    } else if (step.actor === 'tasks') {
      facts = rules.evolve(facts, domainEvent(event));
      compare(step.decision, rules.stateOf(facts));
      if (before.outcomes.length === 0 && world.outcomes.length === 1)
        compare(world.outcomes[0] === 'SUCCESS' ? 'TaskCompleted' : 'TaskFailed', rules.outcomeOf(facts)?.eventType ?? 'none');
    } else if (step.actor === 'quota') {
      const ledger = book!.tasks.get(task)!;
      if (step.kind === 'GenerationFailed' && ledger.refunded) coverage.failureAfterRefund++;
      const [{ decision }] = decideInTurn(book!, [{ taskId: task }], (t, _e, balanceOf) => quotaDecides(rules, step.kind, t, balanceOf));
      compare(step.decision, decision.kind);
      compare(String(before.balance + (step.decision === 'debit' ? -1 : step.decision === 'refund' ? 1 : 0)), String(book!.balances.get(user)));
    } else if (step.actor === 'generation') {
      const status = before.job as JobStatus;
      if (step.kind === 'QuotaRejected') compare(step.decision, rules.closedByRefusal(status) ? 'close' : 'leave');
      if (step.kind === 'TaskCancelled') compare(step.decision, rules.closedByCancel(status) ? 'close' : 'leave');
      if (step.kind === 'TaskTimedOut') compare(step.decision, rules.fateAtDeadline({ status, debited: status === 'running' || status === 'scheduled' }));
    }
  }
  return found;
}

function quotaDecides(rules: Rules, kind: string, ledger: TaskLedger, balanceOf: (userId: string) => number): QuotaDecision {
  if (kind === 'TaskAccepted') return rules.onTaskAccepted(ledger, user, balanceOf(user));
  if (kind === 'GenerationSucceeded') return rules.onGenerationSucceeded(ledger);
  if (kind === 'GenerationFailed') return rules.onGenerationFailed(ledger, balanceOf(user));
  if (kind === 'TaskCancelled') return rules.onTaskCancelled(ledger, user, balanceOf);
  return rules.onTaskTimedOut(ledger, user, balanceOf(user));
}
