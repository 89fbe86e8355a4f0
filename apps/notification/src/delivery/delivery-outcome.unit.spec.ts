import { classifyDelivery } from './delivery-outcome';

describe('classifying a webhook delivery', () => {
  it('counts any 2xx as delivered', () => {
    expect(classifyDelivery({ status: 200 })).toEqual({ delivered: true });
    expect(classifyDelivery({ status: 204 })).toEqual({ delivered: true });
  });

  it.each([500, 502, 503, 408, 429])('tries a %i again', (status) => {
    expect(classifyDelivery({ status })).toEqual({ delivered: false, retriable: true, error: `the receiver answered ${status}` });
  });

  it.each([400, 401, 404, 410])('gives up on a %i', (status) => {
    expect(classifyDelivery({ status })).toMatchObject({ delivered: false, retriable: false });
  });

  it('tries again when nothing answered', () => {
    expect(classifyDelivery({ error: Object.assign(new Error('t'), { name: 'TimeoutError' }) })).toEqual({
      delivered: false,
      retriable: true,
      error: 'the receiver did not answer in time',
    });
    expect(classifyDelivery({ error: new TypeError('fetch failed') })).toMatchObject({ retriable: true, error: 'fetch failed' });
  });
});
