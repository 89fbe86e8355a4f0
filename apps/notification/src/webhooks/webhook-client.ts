import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { mayConnect } from './destination-policy';
import { UrlPolicy } from './webhook-url';

/** What a delivery attempt came to: a status, or the category of what went wrong (never the receiver's words). */
export type DeliveryResult = { status: number } | { failure: DeliveryFailure };
export type DeliveryFailure = 'refused-destination' | 'dns-failed' | 'timeout' | 'connection-failed' | 'tls-failed';

/** Of a receiver's answer, what is read before the connection is dropped (its status is all we keep). */
export const answerCapBytes = 4096;

/**
 * POSTs a webhook with the destination checked at connect time: the name is resolved by our own
 * lookup, which refuses an inside address, so a name that resolved outside at registration and
 * inside now (DNS rebinding) never gets a connection. Redirects are not followed (node's client
 * never does). One deadline covers the whole attempt — lookup, connect, TLS, the status and the
 * answer's body — so a receiver that trickles a byte now and then holds it no longer than
 * `timeoutMs`; of the body at most `answerCapBytes` is read, and dropped. Once the status is in,
 * the attempt ends with it, however the rest of the answer goes.
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
    let status: number | undefined;
    let settled = false;
    const finish = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, agent: false },
      (response) => {
        status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > answerCapBytes) finish({ status: status! });
        });
        response.on('end', () => finish({ status: status! }));
        // eslint-disable-next-line no-restricted-syntax -- the status is the receiver's answer; a body cut short does not change it
        response.on('error', () => finish({ status: status! }));
      },
    );
    const deadline = setTimeout(() => finish(status === undefined ? { failure: 'timeout' } : { status }), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(status === undefined ? { failure: failureOf(error) } : { status }));
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
