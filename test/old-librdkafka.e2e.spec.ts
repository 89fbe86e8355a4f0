import { spawnSync } from 'node:child_process';
import { localKafkaCredentials } from '@app/kafka';
import { requireDebianPackage } from '../tools/stack/toolchain';

/**
 * docs/ingress.md says librdkafka before 2.6.1 cannot authenticate to these brokers, and with which
 * message: Debian 12's python3-confluent-kafka (1.7 on librdkafka 2.0.2) shows it, with the very
 * password every other client of the suite connects with. When the brokers or Debian move and the
 * old client connects, this fails and the note must change.
 */
function olderThan(version: string, than: number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < than.length; i++) if ((parts[i] ?? 0) !== than[i]) return (parts[i] ?? 0) < than[i];
  return false;
}

describe('a client on librdkafka older than 2.6.1', () => {
  // Errors reach error_cb only while the client is polled: poll until the refusal (or 15 s), then ask for metadata.
  const script = `
import json, os, time
import confluent_kafka
errors = []
client = confluent_kafka.Producer({
  'bootstrap.servers': '127.0.0.1:19092', 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanisms': 'SCRAM-SHA-512',
  'sasl.username': os.environ['KAFKA_USERNAME'], 'sasl.password': os.environ['KAFKA_PASSWORD'],
  'error_cb': lambda error: errors.append(error.str()), 'log_level': 0,
})
deadline = time.time() + 15
while time.time() < deadline and not any('SASL authentication error' in e for e in errors):
  client.poll(0.5)
try:
  client.list_topics(timeout=5)
  connected = True
except Exception as failure:
  connected = False
print(json.dumps({'librdkafka': confluent_kafka.libversion()[0], 'connected': connected, 'errors': errors}))
`;

  it('is refused with "invalid credentials" although the password is right', () => {
    requireDebianPackage('python3-confluent-kafka');
    const external = localKafkaCredentials('external')!;
    // Debian's own interpreter: the module is installed for it, whatever python3 comes first on PATH
    const run = spawnSync('/usr/bin/python3', ['-c', script], {
      env: { ...process.env, KAFKA_USERNAME: external.username, KAFKA_PASSWORD: external.password },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as { librdkafka: string; connected: boolean; errors: string[] };
    expect(olderThan(result.librdkafka, [2, 6, 1])).toBe(true);
    expect(result.connected).toBe(false);
    expect(result.errors.join('\n')).toContain('Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
  });
});
