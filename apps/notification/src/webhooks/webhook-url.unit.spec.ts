import { parseAllowedTargets } from './destination-policy';
import { WebhookResolver } from './webhook-resolver';
import { refusalOf } from './webhook-url';

// Address literals only: they resolve to themselves, without DNS.
describe('a webhook URL at registration', () => {
  const policy = (allowInsecure: boolean, allowed = '') => ({ allowInsecure, allowed: parseAllowedTargets(allowed), resolver: new WebhookResolver() });

  it('takes https only, unless insecure webhooks are allowed', async () => {
    expect(await refusalOf('http://93.184.216.34/hook', policy(false))).toBe('url must be an https URL');
    expect(await refusalOf('https://93.184.216.34/hook', policy(false))).toBeUndefined();
    expect(await refusalOf('http://93.184.216.34/hook', policy(true))).toBeUndefined();
  });

  it('refuses what is not a URL, and credentials in one', async () => {
    expect(await refusalOf('not a url', policy(false))).toBe('url must be an absolute https URL');
    expect(await refusalOf('https://u:p@93.184.216.34/', policy(false))).toBe('url must not carry credentials');
  });

  it('reads every spelling of an address as the URL parser does: 2130706433 is 127.0.0.1', async () => {
    for (const url of ['https://2130706433/', 'https://0x7f000001/', 'https://017700000001/', 'https://127.0.1/']) {
      expect(await refusalOf(url, policy(false))).toMatch(/127\.0\.0\.1, which is not a public address/);
    }
  });

  it('lets through an inside address only on the port the operator listed', async () => {
    expect(await refusalOf('http://127.0.0.1:8080/', policy(true, '127.0.0.1:8080'))).toBeUndefined();
    expect(await refusalOf('http://127.0.0.1:8081/', policy(true, '127.0.0.1:8080'))).toMatch(/not a public address/);
  });
});
