import { bookkeepingEvents, consumerGroupsOf } from './consumer-groups';
import { ServicePrincipal, serviceEvents } from './catalogue';

const services = Object.keys(serviceEvents) as ServicePrincipal[];
/** The events a task waits on between its POST and its outcome, each read by the next service. */
const criticalPath = {
  quota: ['TaskAccepted'],
  generation: ['TaskAccepted', 'QuotaDebited'],
  tasks: ['GenerationSucceeded', 'GenerationFailed', 'QuotaRejected'],
};

describe("a service's consumer groups", () => {
  it.each(services)('given %s, then its groups read every event it consumes, each in exactly one group', (service) => {
    const read = consumerGroupsOf(service).flatMap((group) => group.reads);
    expect([...read].sort()).toEqual([...serviceEvents[service].consumes].sort());
    expect(new Set(read).size).toBe(read.length);
  });

  it.each(services)('given %s, then its own group is named for it and no event of the critical path is left to bookkeeping', (service) => {
    const [own, ...others] = consumerGroupsOf(service);
    expect(own).toMatchObject({ group: service, bookkeeping: false });
    for (const type of criticalPath[service as keyof typeof criticalPath] ?? []) expect(own.reads).toContain(type);
    expect(others.every((group) => group.bookkeeping && group.group === `${service}.bookkeeping`)).toBe(true);
  });

  it('given a service with no bookkeeping, then it has one group only', () => {
    expect(bookkeepingEvents.generation).toEqual([]);
    expect(consumerGroupsOf('generation')).toHaveLength(1);
    expect(consumerGroupsOf('tasks').map((g) => g.group)).toEqual(['tasks', 'tasks.bookkeeping']);
  });
});
