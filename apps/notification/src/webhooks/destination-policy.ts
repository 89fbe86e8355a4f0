import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may connect: only to public addresses. Refused: loopback, "this network",
 * RFC 1918, CGNAT, link-local, unique-local, multicast, documentation and reserved ranges, and the
 * IPv6 forms that reach IPv4 (mapped, compatible, NAT64, 6to4) — unless an operator lists the
 * address (a CIDR) or the address and port (`host:port`) in WEBHOOK_ALLOWED_TARGETS.
 */
// Two lists: Node's BlockList matches an IPv4 address against IPv4-mapped IPv6 rules too, and the
// IPv6 list refuses ::ffff:0:0/96.
const refusedV4 = new BlockList();
const refusedV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refusedV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  refusedV6.addSubnet(network, prefix, 'ipv6');
}

export interface AllowedTargets {
  networks: BlockList;
  endpoints: ReadonlySet<string>;
}

/** `WEBHOOK_ALLOWED_TARGETS`: comma-separated CIDRs (`127.0.0.1/32`) or `host:port` (`127.0.0.1:8080`, `[::1]:8080`). */
export function parseAllowedTargets(text: string | undefined): AllowedTargets {
  const networks = new BlockList();
  const endpoints = new Set<string>();
  for (const entry of (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr && isIP(cidr[1])) {
      networks.addSubnet(cidr[1], Number(cidr[2]), isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4');
      continue;
    }
    const endpoint = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(entry);
    if (endpoint && isIP(endpoint[1])) {
      endpoints.add(endpointKey(endpoint[1], Number(endpoint[2])));
      continue;
    }
    throw new Error(`WEBHOOK_ALLOWED_TARGETS: "${entry}" is neither a CIDR (10.0.0.0/8) nor an address and port (127.0.0.1:8080)`);
  }
  return { networks, endpoints };
}

function endpointKey(address: string, port: number): string {
  return `${address.toLowerCase()}|${port}`;
}

/** True when a connection to this address and port is allowed. */
export function mayConnect(address: string, port: number, allowed: AllowedTargets): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (allowed.endpoints.has(endpointKey(address, port)) || allowed.networks.check(address, type)) return true;
  return !(type === 'ipv4' ? refusedV4 : refusedV6).check(address, type);
}
