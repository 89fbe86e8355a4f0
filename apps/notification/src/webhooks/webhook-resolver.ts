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
    const [v4, v6] = await Promise.all([addressesOf(this.resolver.resolve4(bare)), addressesOf(this.resolver.resolve6(bare))]);
    const found = [...v4.addresses.map((address) => ({ address, family: 4 as const })), ...v6.addresses.map((address) => ({ address, family: 6 as const }))];
    if (found.length === 0) {
      const why = `IPv4: ${v4.failure ?? 'no address'}; IPv6: ${v6.failure ?? 'no address'}`;
      throw Object.assign(new Error(`${bare} does not resolve (${why})`), { code: 'ENOTFOUND' });
    }
    return found;
  }
}

/**
 * One family's addresses, or why there are none. A name with addresses of one family only is the
 * usual case, and a server that fails the other family's question (some answer AAAA with SERVFAIL)
 * must not cost the name the addresses it has: a failure counts only when neither family answers,
 * and is then named in the error.
 */
function addressesOf(lookup: Promise<string[]>): Promise<{ addresses: string[]; failure?: string }> {
  return lookup.then(
    (addresses) => ({ addresses }),
    (error: NodeJS.ErrnoException) => ({ addresses: [], failure: error.code ?? error.message }),
  );
}
