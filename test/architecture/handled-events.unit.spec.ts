import { GenerationHandlers } from '../../apps/generation/src/generation.handlers';
import { serviceEvents } from '@app/events';
import { NotificationHandlers } from '../../apps/notification/src/notification.handlers';
import { QuotaHandlers } from '../../apps/quota/src/quota.handlers';
import { TasksHandlers } from '../../apps/tasks/src/tasks.handlers';

/**
 * The principals' table (serviceEvents) grants each service read access to exactly the topics it
 * consumes, and the tests subscribe from it: each service's handler map must name the same events.
 */
describe("each service's handlers and its Kafka grants", () => {
  const handled = {
    tasks: new TasksHandlers({} as never, {} as never, {} as never, { topicPrefix: '' } as never, {} as never).handlers(),
    quota: new QuotaHandlers({ defaultQuota: 1 } as never).handlers(),
    generation: new GenerationHandlers({} as never, {} as never).handlers(),
    notification: new NotificationHandlers({} as never).handlers(),
  };

  it.each(Object.keys(handled) as Array<keyof typeof handled>)('%s handles exactly the events it may read', (service) => {
    expect(Object.keys(handled[service]).sort()).toEqual([...serviceEvents[service].consumes].sort());
  });
});
