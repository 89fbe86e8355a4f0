import { classifyDelivery } from './delivery-outcome.rules';

describe('classifying a webhook delivery', () => {
  it('counts any 2xx as delivered', () => {
    expect(classifyDelivery({ status: 200 })).toEqual({ delivered: true });
    expect(classifyDelivery({ status: 204 })).toEqual({ delivered: true });
  });

  it.each([
    [500, 'http-5xx'],
    [502, 'http-5xx'],
    [503, 'http-5xx'],
    [408, 'http-408'],
    [429, 'http-429'],
  ])('tries a %i again, naming it %s', (status, error) => {
    expect(classifyDelivery({ status })).toEqual({ delivered: false, retriable: true, error });
  });

  it.each([
    [400, 'http-4xx'],
    [401, 'http-4xx'],
    [410, 'http-4xx'],
    [302, 'http-3xx'],
    [307, 'http-3xx'],
  ])('gives up on a %i (%s): a redirect is never followed', (status, error) => {
    expect(classifyDelivery({ status })).toEqual({ delivered: false, retriable: false, error });
  });

  it('tries again when nothing answered, but never a destination that is not allowed', () => {
    expect(classifyDelivery({ failure: 'timeout' })).toEqual({ delivered: false, retriable: true, error: 'timeout' });
    expect(classifyDelivery({ failure: 'connection-failed' })).toMatchObject({ retriable: true });
    expect(classifyDelivery({ failure: 'dns-failed' })).toMatchObject({ retriable: true });
    expect(classifyDelivery({ failure: 'refused-destination' })).toEqual({ delivered: false, retriable: false, error: 'refused-destination' });
  });
});
