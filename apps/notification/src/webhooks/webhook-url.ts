import { AllowedTargets, mayConnect } from './destination-policy';
import { WebhookResolver } from './webhook-resolver';

export interface UrlPolicy {
  allowInsecure: boolean;
  allowed: AllowedTargets;
  resolver: WebhookResolver;
}

/** Why a webhook URL is refused at registration, or undefined when it may be used. */
export async function refusalOf(text: string, policy: UrlPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute https URL';
  }
  const schemes = policy.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return policy.allowInsecure ? 'url must be an http(s) URL' : 'url must be an https URL';
  if (url.username || url.password) return 'url must not carry credentials';
  // The URL parser has already turned every numeric spelling of an IPv4 address (decimal, octal,
  // hex, shortened) into its dotted form, and IPv6 into its canonical one: one check covers them.
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let addresses;
  try {
    addresses = await policy.resolver.resolve(url.hostname);
  } catch {
    return `url's host ${url.hostname} does not resolve`;
  }
  const inside = addresses.find((a) => !mayConnect(a.address, port, policy.allowed));
  return inside ? `url points at ${inside.address}, which is not a public address: refused` : undefined;
}
