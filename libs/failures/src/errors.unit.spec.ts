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

  it.each([
    ['08006', 'connection failure'],
    ['53300', 'too many connections'],
    ['57P01', 'admin shutdown'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'cannot connect now'],
    ['58030', 'io error'],
    ['25006', 'read-only transaction (a failover)'],
    ['28P01', 'password authentication failed (a rotated password)'],
    ['28000', 'role is not permitted to log in'],
    ['57014', 'query cancelled'],
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock'],
    ['55P03', 'lock not available'],
  ])('waits out SQLSTATE %s (%s) rather than dead-lettering', (code) => {
    expect(isInfrastructureError(Object.assign(new Error('pg'), { code }))).toBe(true);
  });

  it.each([
    ['23505', 'unique violation'],
    ['22P02', 'invalid text representation'],
    ['42P01', 'undefined table'],
    ['25P02', 'in failed transaction'],
  ])('takes SQLSTATE %s (%s) as a problem of the work, not an outage', (code) => {
    expect(isInfrastructureError(Object.assign(new Error('pg'), { code }))).toBe(false);
  });

  it('waits out a registry that answers 5xx, 429 or 408, or does not answer in time', () => {
    const registry = (status: number, message = 'Confluent_Schema_Registry - Error') => Object.assign(new Error(message), { name: 'ResponseError', status });
    expect(isInfrastructureError(registry(503))).toBe(true);
    expect(isInfrastructureError(registry(500))).toBe(true);
    expect(isInfrastructureError(registry(429))).toBe(true);
    expect(isInfrastructureError(registry(400, 'Confluent_Schema_Registry - Error, status 400: Timeout (500ms)'))).toBe(true);
    expect(isInfrastructureError(registry(400, 'Confluent_Schema_Registry - Error, status 400: connect ECONNREFUSED 127.0.0.1:18081'))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('fetching schema 7 did not finish within 1000 ms'), { name: 'DeadlineExceeded' }))).toBe(true);
    expect(isInfrastructureError(registry(404, 'Schema 7 not found'))).toBe(false);
    expect(isInfrastructureError(registry(422, 'invalid schema'))).toBe(false);
  });

  it("judges an error with a SQLSTATE by the code alone, whatever value PostgreSQL's text quotes", () => {
    // Given the refusals PostgreSQL gives for an eventId that reads like an outage
    for (const value of ['fetch failed', 'ECONNREFUSED 127.0.0.1:5432', 'Connection terminated unexpectedly', 'Timeout (5000ms)']) {
      const refusal = Object.assign(new Error(`insert into "inbox" ... - invalid input syntax for type uuid: "${value}"`), {
        code: '22P02',
        severity: 'ERROR',
      });
      // Then it is the message's fault, never an outage
      expect(isInfrastructureError(refusal)).toBe(false);
      expect(errorCodeOf(refusal)).toBe('HANDLER_FAILED');
    }
  });

  it('never reads an outage into words of an error that has no outage kind', () => {
    for (const text of ['fetch failed', 'connect ECONNREFUSED 127.0.0.1:5432', 'socket hang up', 'Timeout (5000ms)', 'x did not finish within 5 ms']) {
      expect(isInfrastructureError(new Error(text))).toBe(false);
      expect(isInfrastructureError(new TypeError(text))).toBe(false);
      expect(isInfrastructureError(Object.assign(new Error(text), { name: 'ResponseError', status: 404 }))).toBe(false);
    }
    // pg's fixed wording counts only as pg throws it: a plain Error, the whole message (behind knex's statement text)
    expect(isInfrastructureError(new Error('insert into "inbox" ("event_id") values ($1) - Connection terminated unexpectedly'))).toBe(true);
    expect(isInfrastructureError(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isInfrastructureError(new Error('timeout expired'))).toBe(true); // pg's connect timeout: a server that does not answer
    expect(isInfrastructureError(new Error('the user sent Connection terminated unexpectedly as a name'))).toBe(false);
    expect(isInfrastructureError(new TypeError('Connection terminated unexpectedly'))).toBe(false);
  });

  it("takes undici's fetch failed by its cause's network code, and the client classes that are outages by name", () => {
    expect(isInfrastructureError(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }))).toBe(true);
    expect(isInfrastructureError(new TypeError('fetch failed', { cause: new Error('bad header') }))).toBe(false);
    expect(isInfrastructureError(Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('Request timed out'), { name: 'KafkaJSRequestTimeoutError', retriable: true }))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('leader moved'), { name: 'KafkaJSProtocolError', retriable: true }))).toBe(true);
    expect(isInfrastructureError(Object.assign(new Error('message too large'), { name: 'KafkaJSProtocolError', retriable: false }))).toBe(false);
    expect(isInfrastructureError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe(true);
  });

  it('gives every error a code from the closed set', () => {
    expect(errorCodeOf(new PlatformError('KEY_REUSED', 'x'))).toBe('KEY_REUSED');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('INFRASTRUCTURE_UNAVAILABLE');
    expect(errorCodeOf(new Error('x'))).toBe('HANDLER_FAILED');
  });
});
