import { TestDnsServer } from '@test/dns-server';
import { WebhookResolver } from './webhook-resolver';

/** Names to addresses through a DNS server of the test's own, one that fails every AAAA question. */
describe('the webhook resolver against a server broken for IPv6', () => {
  const dns = new TestDnsServer((name) => (name === 'receiver.test' ? '203.0.113.7' : undefined), true);
  let resolver: WebhookResolver;
  beforeAll(async () => {
    await dns.start();
    resolver = new WebhookResolver([dns.address]);
  });
  afterAll(() => dns.stop());

  it('keeps the IPv4 address a name has when its AAAA question fails', async () => {
    expect(await resolver.resolve('receiver.test')).toEqual([{ address: '203.0.113.7', family: 4 }]);
    expect(dns.queries).toEqual(expect.arrayContaining(['A receiver.test', 'AAAA receiver.test']));
  });

  it('fails a name neither family answers, naming both failures', async () => {
    await expect(resolver.resolve('nowhere.test')).rejects.toMatchObject({
      code: 'ENOTFOUND',
      message: expect.stringMatching(/^nowhere\.test does not resolve \(IPv4: ENOTFOUND; IPv6: ESERVFAIL\)$/),
    });
  });
});
