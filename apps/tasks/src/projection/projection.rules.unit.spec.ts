import { randomUUID } from 'node:crypto';
import { DomainEvent, EventBody, EventType, newEvent } from '@app/events';
import { evolve, noFacts } from '@app/task-state';
import { project, ProjectedTask } from './projection.rules';

const origin = (taskId: string) => ({ taskId, userId: 'u1', correlationId: randomUUID(), causationId: null });
const e = <T extends EventType>(taskId: string, type: T, body: EventBody<T>) => newEvent(type, body, origin(taskId), 'test') as DomainEvent;
const accepted = (taskId: string) => e(taskId, 'TaskAccepted', { idempotencyKey: 'k', reportType: 'summary', input: '{"a":1}' });
const debited = (taskId: string) => e(taskId, 'QuotaDebited', { amount: 1, balanceAfter: 9 });
const started = (taskId: string, attempt: number) => e(taskId, 'GenerationStarted', { attempt });
const succeeded = (taskId: string) => e(taskId, 'GenerationSucceeded', { attempt: 1, reportRef: 'reports/r.md', reportBytes: 1024 });

/** A task whose projection has seen `events`. */
const taskAfter = (taskId: string, events: DomainEvent[], outcomeEventId: string | null = null): ProjectedTask => ({
  taskId,
  facts: events.reduce(evolve, noFacts),
  outcomeEventId,
});
const tasksOf = (...tasks: ProjectedTask[]) => new Map(tasks.map((task) => [task.taskId, task]));

describe('projecting a batch of events onto their tasks', () => {
  const [one, two] = [randomUUID(), randomUUID()];

  it('given two running tasks, when a batch brings both their successes, then each completes and gets one outcome', () => {
    const tasks = tasksOf(taskAfter(one, [accepted(one), debited(one), started(one, 1)]), taskAfter(two, [accepted(two), debited(two), started(two, 1)]));
    const { changes, outcomes } = project(tasks, [succeeded(one), succeeded(two)]);
    expect(changes.map((change) => [change.taskId, change.state])).toEqual([
      [one, 'SUCCESS'],
      [two, 'SUCCESS'],
    ]);
    expect(outcomes.map(({ outcome }) => [outcome.taskId, outcome.eventType])).toEqual([
      [one, 'TaskCompleted'],
      [two, 'TaskCompleted'],
    ]);
    expect(changes[0].outcomeEventId).toBe(outcomes[0].outcome.eventId);
    expect(outcomes[0].outcome.causationId).toBe(outcomes[0].cause.eventId);
  });

  it('given one task, when two events of it that each end it arrive together, then it has one outcome, caused by the first', () => {
    const tasks = tasksOf(taskAfter(one, [accepted(one), debited(one), started(one, 1)]));
    const [first, copy] = [succeeded(one), succeeded(one)];
    const { changes, outcomes } = project(tasks, [first, copy]);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0].cause).toBe(first);
    expect(changes).toHaveLength(1);
  });

  it('given a task whose outcome was published before, when another event ends it again, then no second outcome is made', () => {
    const earlier = randomUUID();
    const tasks = tasksOf(taskAfter(one, [accepted(one), debited(one), started(one, 1), succeeded(one)], earlier));
    const { changes, outcomes } = project(tasks, [succeeded(one)]);
    expect(outcomes).toEqual([]);
    expect(changes[0].outcomeEventId).toBe(earlier);
  });

  it("given a task's events in one batch, then they are applied in the order given, each on what the one before left", () => {
    const tasks = tasksOf(taskAfter(one, [debited(one)]));
    const { changes } = project(tasks, [started(one, 1), started(one, 2)]);
    expect(changes).toEqual([expect.objectContaining({ state: 'RUNNING', attempts: 2 })]);
    expect(changes[0].request).toBeUndefined();
  });

  it("given a task's acceptance in the batch, then the change carries what the request asked", () => {
    const { changes } = project(tasksOf(taskAfter(one, [])), [accepted(one)]);
    expect(changes[0].request).toEqual({ reportType: 'summary', input: '{"a":1}', idempotencyKey: 'k' });
  });

  it('given an event of a task that was not read, then the projection refuses to guess', () => {
    expect(() => project(tasksOf(), [debited(one)])).toThrow(/not among the tasks read/);
  });
});
