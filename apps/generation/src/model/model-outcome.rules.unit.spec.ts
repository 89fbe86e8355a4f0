import { classifyFailure, classifyResponse, tooLarge } from './model-outcome.rules';

const report = { choices: [{ message: { role: 'assistant', content: '# Report' } }] };

describe('classifying what the model answered', () => {
  it('takes a 200 with content as the report', () => {
    expect(classifyResponse(200, report)).toEqual({ ok: true, content: '# Report' });
  });

  it.each([
    [503, 'MODEL_UNAVAILABLE'],
    [500, 'MODEL_UNAVAILABLE'],
    [429, 'MODEL_RATE_LIMITED'],
  ])('retries a %i (%s)', (status, code) => {
    expect(classifyResponse(status, {})).toMatchObject({ ok: false, code, retriable: true });
  });

  it.each([400, 401, 403, 422])('never retries a %i', (status) => {
    expect(classifyResponse(status, { error: { message: 'unsupported report type' } })).toMatchObject({
      ok: false,
      code: 'MODEL_REJECTED',
      retriable: false,
      message: `the model refused the request (${status}): unsupported report type`,
    });
  });

  it('never retries an answer with no report in it', () => {
    expect(classifyResponse(200, { choices: [] })).toMatchObject({ code: 'INVALID_OUTPUT', retriable: false });
    expect(classifyResponse(200, { choices: [{ message: { content: '  ' } }] })).toMatchObject({ code: 'INVALID_OUTPUT' });
  });

  it('retries a timeout and a connection that failed', () => {
    expect(classifyFailure(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toMatchObject({ code: 'MODEL_TIMEOUT', retriable: true });
    expect(classifyFailure(new TypeError('fetch failed'))).toMatchObject({ code: 'MODEL_UNAVAILABLE', retriable: true });
  });

  it('retries a call whose answer stopped coming, before or during its body (the call timed out)', () => {
    expect(classifyFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toMatchObject({
      code: 'MODEL_TIMEOUT',
      retriable: true,
    });
    expect(classifyFailure(new TypeError('fetch failed'))).toMatchObject({ code: 'MODEL_UNAVAILABLE', retriable: true });
  });

  it('never retries an answer past the size limit', () => {
    expect(tooLarge(1024)).toMatchObject({ ok: false, code: 'INVALID_OUTPUT', retriable: false, message: expect.stringContaining('1024 bytes') });
  });
});
