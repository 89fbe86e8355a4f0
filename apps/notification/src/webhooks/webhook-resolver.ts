import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Names to addresses for webhooks: the system's resolver, or the DNS servers WEBHOOK_DNS_SERVERS
 * names (a test's own server, or a resolver an operator trusts). An address literal resolves to itself.
 */
export class WebhookResolver {
  private readonly resolver?: dns.Resolver;

  constructor(servers: string[] = []) {
    if (servers.length > 0) {
      this.resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
      this.resolver.setServers(servers);
    }
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const bare = hostname.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    if (family !== 0) return [{ address: bare, family: family as 4 | 6 }];
    if (!this.resolver) return (await dns.lookup(bare, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    const [v4, v6] = await Promise.all([this.resolver.resolve4(bare).catch(noneOfThatFamily), this.resolver.resolve6(bare).catch(noneOfThatFamily)]);
    const found = [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
    if (found.length === 0) throw Object.assign(new Error(`${bare} does not resolve`), { code: 'ENOTFOUND' });
    return found;
  }
}

/**
 * A name with addresses of one family only is the usual case: the other's lookup answers that it
 * has none. Any other failure (a server that does not answer) fails the lookup, and the delivery
 * is tried again later.
 */
function noneOfThatFamily(error: unknown): string[] {
  if (['ENODATA', 'ENOTFOUND'].includes((error as NodeJS.ErrnoException).code ?? '')) return [];
  throw error;
}
