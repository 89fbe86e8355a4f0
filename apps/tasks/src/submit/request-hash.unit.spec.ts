import { canonicalJson, requestHash } from './request-hash';

describe('the request hash behind Idempotency-Key', () => {
  it('is the same for the same content whatever the key order', () => {
    const a = { userId: 'u1', reportType: 'summary', input: { text: 'x', options: { pages: 2, lang: 'en' } } };
    const b = { input: { options: { lang: 'en', pages: 2 }, text: 'x' }, reportType: 'summary', userId: 'u1' };
    expect(requestHash(a)).toBe(requestHash(b));
    expect(canonicalJson(b)).toBe('{"input":{"options":{"lang":"en","pages":2},"text":"x"},"reportType":"summary","userId":"u1"}');
  });

  it('differs when any value differs, arrays keeping their order', () => {
    const base = { userId: 'u1', reportType: 'summary', input: { list: [1, 2] } };
    expect(requestHash(base)).not.toBe(requestHash({ ...base, input: { list: [2, 1] } }));
    expect(requestHash(base)).not.toBe(requestHash({ ...base, reportType: 'detailed' }));
  });
});
