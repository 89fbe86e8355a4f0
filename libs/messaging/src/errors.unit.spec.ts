import { errorCodeOf, isInfrastructureError, isRetriable, PlatformError } from './errors';

describe('error classification', () => {
  it('takes retriability from the error code', () => {
    expect(isRetriable(new PlatformError('MODEL_TIMEOUT', 'model did not answer in 30s'))).toBe(true);
    expect(isRetriable(new PlatformError('MODEL_REJECTED', 'model said 400'))).toBe(false);
    expect(isRetriable(new PlatformError('INSUFFICIENT_QUOTA', 'balance 0'))).toBe(false);
  });

  it('treats an unknown error as retriable, unless it carries retriable: false', () => {
    expect(isRetriable(new Error('boom'))).toBe(true);
    expect(isRetriable(Object.assign(new Error('bad'), { retriable: false }))).toBe(false);
  });

  it('recognises an outage of the database, registry or network, also behind a cause', () => {
    expect(isInfrastructureError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
    expect(isInfrastructureError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isInfrastructureError(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isInfrastructureError(new Error('handler bug'))).toBe(false);
  });

  it('gives every error a code from the closed set', () => {
    expect(errorCodeOf(new PlatformError('KEY_REUSED', 'x'))).toBe('KEY_REUSED');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('INFRASTRUCTURE_UNAVAILABLE');
    expect(errorCodeOf(new Error('x'))).toBe('HANDLER_FAILED');
  });
});
