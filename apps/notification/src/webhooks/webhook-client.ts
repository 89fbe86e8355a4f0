import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { mayConnect } from './destination-policy';
import { UrlPolicy } from './webhook-url';

/** What a delivery attempt came to: a status, or the category of what went wrong (never the receiver's words). */
export type DeliveryResult = { status: number } | { failure: DeliveryFailure };
export type DeliveryFailure = 'refused-destination' | 'dns-failed' | 'timeout' | 'connection-failed' | 'tls-failed';

/**
 * POSTs a webhook with the destination checked at connect time: the name is resolved by our own
 * lookup, which refuses an inside address, so a name that resolved outside at registration and
 * inside now (DNS rebinding) never gets a connection. Redirects are not followed (node's client
 * never does), and the receiver's body is read and dropped.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs: number, policy: UrlPolicy): Promise<DeliveryResult> {
  const target = new URL(url);
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  if (target.protocol !== 'https:' && !(policy.allowInsecure && target.protocol === 'http:')) return { failure: 'refused-destination' };
  // An address literal is connected to without a lookup: check it here.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !mayConnect(literal, port, policy.allowed)) return { failure: 'refused-destination' };
  const lookup: LookupFunction = (hostname, options, callback) => {
    policy.resolver.resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const chosen = wanted[0];
        if (!chosen) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (!mayConnect(chosen.address, port, policy.allowed)) {
          return callback(Object.assign(new Error(`${hostname} resolves to ${chosen.address}: refused`), { code: 'EREFUSEDDESTINATION' }), '', 4);
        }
        if (options.all) return (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [chosen]);
        callback(null, chosen.address, chosen.family);
      },
      (error: Error) => callback(Object.assign(error, { code: (error as { code?: string }).code ?? 'ENOTFOUND' }), '', 4),
    );
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<DeliveryResult>((resolve) => {
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, timeout: timeoutMs, agent: false },
      (response) => {
        response.resume(); // the receiver's body is never kept
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ failure: failureOf(error) }));
    request.end(body);
  });
}

function failureOf(error: NodeJS.ErrnoException): DeliveryFailure {
  if (error.code === 'EREFUSEDDESTINATION') return 'refused-destination';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' || error.code === 'ENODATA') return 'dns-failed';
  if (error.code === 'ETIMEDOUT') return 'timeout';
  if (/CERT|SSL|TLS/i.test(error.code ?? '') || /certificate|TLS|SSL/i.test(error.message)) return 'tls-failed';
  return 'connection-failed';
}
