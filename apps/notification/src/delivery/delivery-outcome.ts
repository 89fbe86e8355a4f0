import { capText } from '@app/events';

export type DeliveryOutcome = { delivered: true } | { delivered: false; retriable: boolean; error: string };

/** 2xx delivers; 408, 429, 5xx and no answer at all are worth another try; any other 4xx is not. */
export function classifyDelivery(result: { status: number } | { error: unknown }): DeliveryOutcome {
  if ('error' in result) {
    const error = result.error as Error;
    return { delivered: false, retriable: true, error: error?.name === 'TimeoutError' ? 'the receiver did not answer in time' : capText(String(error?.message ?? error)) };
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { delivered: true };
  const retriable = status === 408 || status === 429 || status >= 500;
  return { delivered: false, retriable, error: `the receiver answered ${status}` };
}
