import { startService } from '../tools/run/service-process';
import { freePort } from './support/unique';

/** A service started with bad settings says every one of them at once, by name, and does not start. */
describe('configuration at boot', () => {
  it('lists every invalid setting of the service, its messaging and its tokens, then exits 1', async () => {
    const generation = startService('generation', await freePort(), {
      MODEL_TIMEOUT: 'soon',
      GENERATION_CONCURRENCY: 'many',
      OUTBOX_BATCH_SIZE: '0',
      AUTH_ALGORITHMS: 'HS256',
      KAFKA_BROKERS: 'no port here',
    });
    const code = await new Promise<number | null>((resolve) => generation.child.once('close', (exitCode) => resolve(exitCode)));
    expect(code).toBe(1);
    const output = generation.output();
    for (const variable of ['MODEL_TIMEOUT', 'GENERATION_CONCURRENCY', 'OUTBOX_BATCH_SIZE', 'AUTH_ALGORITHMS', 'KAFKA_BROKERS'])
      expect(output).toContain(variable);
    expect(output).toContain('invalid configuration for generation');
    expect(output).not.toContain('listening on');
  });
});
