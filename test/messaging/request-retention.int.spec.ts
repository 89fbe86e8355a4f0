import { ConfigResourceTypes } from 'kafkajs';
import { provisionTopicsAndAcls } from '@app/kafka-admin';
import { defaults } from '@app/config';
import { topicFor } from '@app/events';
import { deadLetterTopicFor } from '@app/catalogue';
import { createKafka } from '@app/kafka';
import { removeTestData } from '../support/remove-test-data';
import { uniqueSuffix } from '../support/unique';

/** Outside requests carry the user's input in plaintext: their topic, and tasks' dead letters, forget them after a while. */
describe('the retention of outside requests', () => {
  const prefix = `t${uniqueSuffix()}.`;
  const kafka = createKafka('retention-test', [defaults.kafkaBrokers]);
  const topics = {
    requests: topicFor('TaskRequested', prefix),
    tasksDeadLetters: deadLetterTopicFor(`${prefix}tasks`),
    accepted: topicFor('TaskAccepted', prefix),
    generationDeadLetters: deadLetterTopicFor(`${prefix}generation`),
  };
  afterAll(() => removeTestData(kafka, prefix));

  async function settings(): Promise<Record<string, { retention?: string; minInSync?: string }>> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: Object.values(topics).map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms', 'min.insync.replicas'] })),
      });
      const value = (entries: Array<{ configName: string; configValue: string }>, name: string) => entries.find((e) => e.configName === name)?.configValue;
      return Object.fromEntries(
        resources.map((r) => [r.resourceName, { retention: value(r.configEntries, 'retention.ms'), minInSync: value(r.configEntries, 'min.insync.replicas') }]),
      );
    } finally {
      await admin.disconnect();
    }
  }

  it('bounds task-requested and tasks’ dead letters, keeps every other topic forever, and applies a new bound to existing topics', async () => {
    await provisionTopicsAndAcls(kafka, prefix, 1, 5_000);
    const first = await settings();
    expect(Object.fromEntries(Object.entries(first).map(([topic, s]) => [topic, s.retention]))).toEqual({
      [topics.requests]: '5000',
      [topics.tasksDeadLetters]: '5000',
      [topics.accepted]: '-1',
      [topics.generationDeadLetters]: '-1',
    });

    // The operator changes TASK_REQUESTED_RETENTION and provisions again: the topics that exist take it,
    // and keep the in-sync minimum they were made with.
    await provisionTopicsAndAcls(kafka, prefix, 1, 60_000);
    const second = await settings();
    expect(second[topics.requests]).toEqual({ retention: '60000', minInSync: first[topics.requests].minInSync });
    expect(second[topics.tasksDeadLetters]).toEqual({ retention: '60000', minInSync: first[topics.tasksDeadLetters].minInSync });
    expect(second[topics.accepted].retention).toBe('-1');
  });
});
