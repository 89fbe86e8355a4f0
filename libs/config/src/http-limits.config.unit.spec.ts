import { ConfigError } from './config-error';
import { loadHttpLimits } from './http-limits.config';

describe('loadHttpLimits', () => {
  it('keeps a slow caller seconds, not minutes, by default', () => {
    expect(loadHttpLimits({})).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 2000,
      checkIntervalMs: 1000,
    });
  });

  it('checks a short headers timeout often enough to honour it', () => {
    expect(loadHttpLimits({ HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: '4s' }).checkIntervalMs).toBe(500);
  });

  it('refuses settings that cannot hold, naming each', () => {
    expect(() => loadHttpLimits({ HTTP_HEADERS_TIMEOUT: '1m', HTTP_REQUEST_TIMEOUT: '30s', HTTP_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
    try {
      loadHttpLimits({ HTTP_HEADERS_TIMEOUT: '1m', HTTP_REQUEST_TIMEOUT: '30s', HTTP_MAX_CONNECTIONS: '0' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'HTTP_MAX_CONNECTIONS must be a whole number from 1 to 9007199254740991, got "0"',
        'HTTP_HEADERS_TIMEOUT (60000 ms) must not be longer than HTTP_REQUEST_TIMEOUT (30000 ms)',
      ]);
    }
  });
});
