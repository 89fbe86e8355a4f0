import fc from 'fast-check';
import { onGenerationFailed } from '../reactions/generation-failed/refund.rules';
import { onGenerationSucceeded } from '../reactions/generation-succeeded/settle.rules';
import { onTaskAccepted } from '../reactions/task-accepted/debit.rules';
import { onTaskCancelled } from '../reactions/task-cancelled/refund-cancelled.rules';
import { onTaskTimedOut } from '../reactions/task-timed-out/close-timed-out.rules';
import { decideInTurn, QuotaDecision, TaskLedger, untouchedTask } from './quota.rules';

const debitedBy = (userId: string, more: Partial<TaskLedger> = {}): TaskLedger => ({ ...untouchedTask, debit: { userId, amount: 1 }, ...more });

describe('quota rules across reactions', () => {
  it('given a debited task, when a failure refunded it first, then the cancel refunds nothing more', () => {
    const [first, second] = decideInTurn(
      { balances: new Map([['ann', 4]]), tasks: new Map([['t1', debitedBy('ann')]]) },
      [
        { taskId: 't1', kind: 'failed' },
        { taskId: 't1', kind: 'cancelled' },
      ],
      (task, event, balanceOf) => (event.kind === 'failed' ? onGenerationFailed(task, balanceOf('ann')) : onTaskCancelled(task, 'ann', balanceOf)),
    );
    expect([first.decision.kind, second.decision.kind]).toEqual(['refund', 'nothing']);
  });
});

/**
 * Any order of deliveries (duplicates, forgeries naming other users, outcomes before requests)
 * applied to a ledger the way the handlers apply them: the money invariants hold throughout.
 */
describe('quota rules under any sequence of events', () => {
  type Arrival = { type: 'accepted' | 'timedOut' | 'failed' | 'succeeded'; task: number; claimedUser: string };
  const users = ['ann', 'bob'];
  const arrival = fc.record({
    type: fc.constantFrom<Arrival['type']>('accepted', 'timedOut', 'failed', 'succeeded'),
    task: fc.integer({ min: 0, max: 3 }),
    claimedUser: fc.constantFrom(...users),
  });

  it('debits each task at most once, refunds only a debit, at most once, never after success, and keeps balances within 0..granted', () => {
    fc.assert(
      fc.property(fc.array(arrival, { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (arrivals, granted) => {
        const balance = new Map(users.map((u) => [u, granted]));
        const ledgers = new Map<number, TaskLedger>();
        const history: Array<{ task: number; decision: QuotaDecision; succeededBefore: boolean }> = [];
        for (const { type, task, claimedUser } of arrivals) {
          const ledger = ledgers.get(task) ?? untouchedTask;
          const owner = ledger.debit?.userId ?? claimedUser;
          const decision =
            type === 'accepted'
              ? onTaskAccepted(ledger, claimedUser, balance.get(claimedUser)!)
              : type === 'timedOut'
                ? onTaskTimedOut(ledger, claimedUser, balance.get(claimedUser)!)
                : type === 'failed'
                  ? onGenerationFailed(ledger, balance.get(owner)!)
                  : onGenerationSucceeded(ledger);
          history.push({ task, decision, succeededBefore: ledger.settled });
          if (decision.kind === 'debit') {
            ledgers.set(task, { ...ledger, debit: { userId: decision.userId, amount: decision.amount } });
            balance.set(decision.userId, balance.get(decision.userId)! - decision.amount);
          } else if (decision.kind === 'reject') ledgers.set(task, { ...ledger, rejected: true });
          else if (decision.kind === 'refund') {
            ledgers.set(task, { ...ledger, refunded: true });
            balance.set(decision.userId, balance.get(decision.userId)! + decision.amount);
          } else if (decision.kind === 'settle') ledgers.set(task, { ...ledger, settled: true });
          for (const user of users) expect(balance.get(user)).toBeGreaterThanOrEqual(0);
          for (const user of users) expect(balance.get(user)).toBeLessThanOrEqual(granted);
        }
        for (let task = 0; task <= 3; task++) {
          const decisions = history.filter((h) => h.task === task);
          const debits = decisions.filter((h) => h.decision.kind === 'debit');
          const refunds = decisions.filter((h) => h.decision.kind === 'refund');
          expect(debits.length).toBeLessThanOrEqual(1);
          expect(refunds.length).toBeLessThanOrEqual(debits.length);
          expect(refunds.every((r) => !r.succeededBefore)).toBe(true);
          if (refunds.length) expect(refunds[0].decision).toMatchObject({ userId: (debits[0].decision as { userId: string }).userId });
          expect(decisions.filter((h) => h.decision.kind === 'reject').length + debits.length).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('quota decisions over a batch, in turn', () => {
  const accepted = (taskId: string, userId: string) => ({ taskId, userId });
  const onAccepted = (task: TaskLedger, event: { userId: string }, balanceOf: (userId: string) => number) =>
    onTaskAccepted(task, event.userId, balanceOf(event.userId));

  it('given one unit left, when two tasks of that user arrive together, then the first is debited and the second refused', () => {
    const book = { balances: new Map([['ann', 1]]), tasks: new Map<string, TaskLedger>() };
    const decided = decideInTurn(book, [accepted('t1', 'ann'), accepted('t2', 'ann')], onAccepted);
    expect(decided.map(({ decision }) => decision)).toEqual([
      { kind: 'debit', userId: 'ann', amount: 1, balanceAfter: 0 },
      { kind: 'reject', userId: 'ann', reason: 'INSUFFICIENT_QUOTA', balance: 0 },
    ]);
    expect(book.balances.get('ann')).toBe(0);
  });

  it('given a task met twice in the batch, then it is decided once', () => {
    const book = { balances: new Map([['ann', 5]]), tasks: new Map<string, TaskLedger>() };
    const decided = decideInTurn(book, [accepted('t1', 'ann'), accepted('T1', 'ann')], onAccepted);
    expect(decided.map(({ decision }) => decision.kind)).toEqual(['debit', 'nothing']);
    expect(book.balances.get('ann')).toBe(4);
  });

  it('given a debited task, when its failure arrives, then the debit goes back to the user it was taken from, on the balance the book holds', () => {
    const book = { balances: new Map([['ann', 2]]), tasks: new Map([['t1', debitedBy('ann')]]) };
    const decided = decideInTurn(book, [{ taskId: 't1', userId: 'mallory' }], (task, _event, balanceOf) =>
      onGenerationFailed(task, balanceOf(task.debit!.userId)),
    );
    expect(decided[0].decision).toEqual({ kind: 'refund', userId: 'ann', amount: 1, balanceAfter: 3 });
    expect(book.tasks.get('t1')).toMatchObject({ refunded: true });
  });

  it('decides a batch exactly as the same events one batch each would be decided', () => {
    const arrival = fc.record({ task: fc.constantFrom('t1', 't2', 't3'), user: fc.constantFrom('ann', 'bob') });
    fc.assert(
      fc.property(fc.array(arrival, { maxLength: 12 }), fc.nat(3), (arrivals, units) => {
        const events = arrivals.map(({ task, user }) => accepted(task, user));
        const freshBook = () => ({
          balances: new Map([
            ['ann', units],
            ['bob', units],
          ]),
          tasks: new Map<string, TaskLedger>(),
        });
        const together = decideInTurn(freshBook(), events, onAccepted).map(({ decision }) => decision);
        const alone = freshBook();
        const oneByOne = events.flatMap((event) => decideInTurn(alone, [event], onAccepted).map(({ decision }) => decision));
        expect(together).toEqual(oneByOne);
      }),
      { numRuns: 300 },
    );
  });
});
