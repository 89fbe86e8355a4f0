import { defaults } from '@app/config';
import { abandonedProvisioningSettled, createKafka, ensureTopics } from '@app/kafka';
import { DeadlineExceeded } from '@app/timing';
import { kafkaProcess } from '../../tools/stack/kafka';
import { runningPid } from '../../tools/stack/processes';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { removeTestData } from '../support/remove-test-data';
import { uniqueSuffix } from '../support/unique';

/**
 * A broker that accepts connections but answers nothing (here: its JVM paused with SIGSTOP, as a
 * long GC pause or a frozen host would). Topic provisioning must neither hang nor give up too soon.
 */
describe('topic provisioning against a broker that does not answer', () => {
  const prefix = `t${uniqueSuffix()}.`;
  const kafka = createKafka('unresponsive-broker-test', [defaults.kafkaBrokers]);
  const brokerPid = () => runningPid(kafkaProcess(loadStackConfig()))!;
  const pause = () => process.kill(brokerPid(), 'SIGSTOP');
  const resume = () => process.kill(brokerPid(), 'SIGCONT');

  afterAll(async () => {
    resume(); // whatever happened, leave the broker answering for what comes next
    // The attempts given up at their deadline carry on once the broker answers: let them end here,
    // not after the test file (kafkajs loading a module then fails the whole run).
    await abandonedProvisioningSettled();
    await removeTestData(kafka, prefix);
  });

  it('gives up after its attempts with an error naming the step, instead of waiting forever', async () => {
    pause();
    try {
      const provisioning = ensureTopics(kafka, [{ topic: `${prefix}never` }], 3, { attemptMs: 1_000, attempts: 2 });
      await expect(provisioning).rejects.toBeInstanceOf(DeadlineExceeded);
      await expect(provisioning).rejects.toThrow('provisioning topics did not finish within 1000 ms');
    } finally {
      resume();
    }
  });

  it('succeeds with a fresh client once the broker answers again, after attempts that timed out', async () => {
    // Given a broker that stays paused through the first two attempts
    pause();
    const started = Date.now();
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => {
        resume();
        resolve();
      }, 2_500),
    );

    // When topics are provisioned
    const topic = `${prefix}after-pause`;
    await ensureTopics(kafka, [{ topic }], 3, { attemptMs: 1_000, attempts: 10 });
    await resumed;

    // Then it finished only after the pause (it cannot while nothing answers)
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);

    // And the topic exists with a leader for each partition
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(topics[0].partitions).toHaveLength(3);
      expect(topics[0].partitions.every((p) => p.leader >= 0)).toBe(true);
    } finally {
      await admin.disconnect();
    }
  });
});
