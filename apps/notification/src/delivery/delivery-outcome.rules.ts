import type { DeliveryResult } from '../webhooks/webhook-client';

/** How a delivery ended; `error` is a category, never the receiver's own words (they could be anything). */
export type DeliveryOutcome = { delivered: true } | { delivered: false; retriable: boolean; error: DeliveryError };

export type DeliveryError =
  'refused-destination' | 'dns-failed' | 'timeout' | 'connection-failed' | 'tls-failed' | 'http-3xx' | 'http-408' | 'http-429' | 'http-4xx' | 'http-5xx';

/**
 * 2xx delivers. 408, 429, 5xx, no answer, a name that did not resolve and a failed connection are worth
 * another try. A redirect (never followed), any other 4xx, and a destination that is not allowed are not.
 */
export function classifyDelivery(result: DeliveryResult): DeliveryOutcome {
  if ('failure' in result) return { delivered: false, retriable: result.failure !== 'refused-destination', error: result.failure };
  const { status } = result;
  if (status >= 200 && status < 300) return { delivered: true };
  if (status === 408 || status === 429) return { delivered: false, retriable: true, error: `http-${status}` };
  if (status >= 500) return { delivered: false, retriable: true, error: 'http-5xx' };
  if (status >= 300 && status < 400) return { delivered: false, retriable: false, error: 'http-3xx' };
  return { delivered: false, retriable: false, error: 'http-4xx' };
}
