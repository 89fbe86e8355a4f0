import { defaults } from '@app/config';
import { topicFor } from '@app/events';
import { EventCodec } from '@app/kafka';
import { stopService } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

/**
 * A request quota lost (here: its consumer's offset moved past it while it was down, as a dead letter
 * or an operator's reset would) used to leave its task QUEUED for good. Now the tasks service
 * publishes the request again past TASK_DEADLINE, and times the task out past TASK_DEADLINE_GRACE.
 */
describe('tasks with no outcome past the task deadline', () => {
  // A grace long enough for quota, just restarted, to take the request published again on a loaded
  // machine (8 s once timed a task out that was on its way to completing, in a CI run beside a campaign).
  const platform = new Platform({ TASK_DEADLINE: '4s', TASK_DEADLINE_GRACE: '20s', TASK_DEADLINE_CHECK_INTERVAL: '200ms' });
  let reader: TopicReader;
  const requestTopic = () => topicFor('TaskAccepted', platform.env.topicPrefix);
  const copiesOfRequest = (taskId: string) => reader.messages.filter((m) => m.event?.taskId === taskId).length;

  beforeAll(async () => {
    await platform.start();
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    reader = await new TopicReader(platform.kafka, codec).start([requestTopic()]);
  });
  afterAll(async () => {
    await reader.stop();
    await platform.stop();
  });

  /** Stops quota, runs `meanwhile`, moves quota's offsets on task-accepted to the end, starts quota. */
  async function quotaLoses(meanwhile: () => Promise<void>): Promise<void> {
    await stopService(platform.service('quota'));
    await meanwhile();
    const admin = platform.kafka.admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(requestTopic());
      await admin.setOffsets({
        groupId: `${platform.env.topicPrefix}quota`,
        topic: requestTopic(),
        partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
      });
    } finally {
      await admin.disconnect();
    }
    await platform.startApp('quota');
  }

  it('publishes a request quota lost again, under its own eventId, and the task completes', async () => {
    // Given a request that quota never sees
    let taskId = '';
    await quotaLoses(async () => {
      taskId = (await platform.submit('lost-request-user')).body.taskId;
      await waitFor(() => copiesOfRequest(taskId) === 1, { what: 'the request on its topic' });
    });

    // Then, past the deadline, the request is published again, and the task completes, charged once
    const task = await platform.settled(taskId, 60_000);
    expect(task.state).toBe('SUCCESS');
    const copies = reader.messages.filter((m) => m.event?.taskId === taskId);
    expect(copies.length).toBe(2);
    expect(new Set(copies.map((m) => m.event!.eventId)).size).toBe(1);
    expect(task.timeline.map((e: { eventType: string }) => e.eventType)).not.toContain('TaskTimedOut');
    expect(await platform.quota('lost-request-user')).toMatchObject({ debited: 1, refunded: 0 });
  });

  it('times out a task whose request quota lost twice: refused, told, and nothing charged', async () => {
    // Given a request that quota loses, and loses again when it is published again
    let taskId = '';
    await quotaLoses(async () => {
      taskId = (await platform.submit('timed-out-user')).body.taskId;
      await waitFor(() => copiesOfRequest(taskId) === 2, { what: 'the request published again past the deadline', timeoutMs: 30_000 });
    });

    // Then, past the grace, the task times out: quota refuses it, and the user is told why
    const task = await platform.settled(taskId, 60_000);
    expect(task).toMatchObject({ state: 'FAILED', reason: 'no outcome within the task deadline' });
    const types = task.timeline.map((e: { eventType: string }) => e.eventType);
    expect(types).toEqual(expect.arrayContaining(['TaskTimedOut', 'QuotaRejected', 'TaskFailed', 'NotificationSent']));
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskFailed').data).toMatchObject({ errorCode: 'TIMED_OUT', compensated: false });
    expect(await platform.quota('timed-out-user')).toMatchObject({ balance: 10, debited: 0, refunded: 0 });
    expect((await platform.generation(taskId)).status).toBe('refused');
  });

  it('fails a debited task whose generation never came back, refunding it, once generation hears of the timeout', async () => {
    // Given a task debited while generation is down, and down past the deadline and its grace
    await stopService(platform.service('generation'));
    const { taskId } = (await platform.submit('stalled-user')).body;
    await waitFor(async () => (await platform.task(taskId)).timeline.some((e: { eventType: string }) => e.eventType === 'TaskTimedOut'), {
      what: 'the task to time out',
      timeoutMs: 60_000,
    });

    // When generation comes back
    await platform.startApp('generation');

    // Then the task ends, and the user is charged only if it succeeded
    const task = await platform.settled(taskId, 60_000);
    expect(['SUCCESS', 'COMPENSATED']).toContain(task.state);
    expect(await platform.quota('stalled-user')).toMatchObject({ debited: 1, refunded: task.state === 'COMPENSATED' ? 1 : 0 });
  });
});
