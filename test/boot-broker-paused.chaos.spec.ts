import { defaults } from '@app/config';
import { createKafka } from '@app/kafka';
import { healthStatus, RunningService, startService, stopService, waitForHealth } from '../tools/run/service-process';
import { kafkaProcess } from '../tools/stack/kafka';
import { runningPid } from '../tools/stack/processes';
import { loadStackConfig } from '../tools/stack/stack.config';
import { removeTestData } from './support/remove-test-data';
import { TestEnv } from './support/test-env';
import { freePort } from './support/unique';
import { waitFor } from './support/wait-for';
import { JsonBody } from './support/json-body';

/**
 * A service that boots while the broker does not answer (its JVM paused with SIGSTOP, as a long GC
 * pause or a frozen host would): it serves /health at once, answering 503 with the step it waits
 * for, and its consumer joins its group once the broker answers, without a restart.
 */
describe('a service booting while the broker does not answer', () => {
  const env = new TestEnv();
  const brokerPid = () => runningPid(kafkaProcess(loadStackConfig()))!;
  let service: RunningService | undefined;

  afterAll(async () => {
    process.kill(brokerPid(), 'SIGCONT'); // whatever happened, leave the broker answering
    if (service) await stopService(service);
    await env.dropDatabases(['quota']);
    await removeTestData(createKafka('boot-test', [defaults.kafkaBrokers]), env.topicPrefix);
  });

  it('answers 503 naming what it waits for while the broker is paused, and joins its group once it answers', async () => {
    // Given the world's topics and ACLs (made by an administrator, as always), and a paused broker
    await env.provision();
    process.kill(brokerPid(), 'SIGSTOP');

    // When the quota service boots
    service = startService('quota', await freePort(), env.serviceEnv('quota'));

    // Then it answers /health with 503, saying messaging has not started and Kafka does not answer
    await waitForHealth(service, 503, 60_000);
    const body = (await (await fetch(`http://127.0.0.1:${service.port}/health`)).json()) as JsonBody;
    expect(body.details.kafka.status).toBe('down');
    expect(body.details.messaging).toMatchObject({ status: 'down', message: expect.stringMatching(/messaging (is starting|could not start)/) });
    expect(body.details.postgres.status).toBe('up');

    // When the broker answers again
    process.kill(brokerPid(), 'SIGCONT');

    // Then the service becomes healthy without a restart, and its consumer is a member of its group
    await waitForHealth(service, 200, 120_000);
    expect(service.child.exitCode).toBeNull();
    const admin = createKafka('boot-test', [defaults.kafkaBrokers]).admin();
    await admin.connect();
    try {
      const members = await waitFor(
        async () => {
          const { groups } = await admin.describeGroups([`${env.topicPrefix}quota`]);
          return groups[0].state === 'Stable' && groups[0].members.length;
        },
        { what: "quota's group to be stable with its member" },
      );
      expect(members).toBe(1);
    } finally {
      await admin.disconnect();
    }
    expect(await healthStatus(service.port)).toBe(200);
  });
});
