import { capText } from './cap-text';

describe('capText', () => {
  it('keeps short text as it is', () => {
    expect(capText('the model refused the request (400)')).toBe('the model refused the request (400)');
  });

  it('cuts long text to the limit and marks the cut', () => {
    const capped = capText('x'.repeat(100_000), 50);
    expect(capped).toHaveLength(50);
    expect(capped.endsWith('…')).toBe(true);
  });

  it('never leaves half of a surrogate pair at the cut', () => {
    const capped = capText('a'.repeat(48) + '😀'.repeat(10), 50);
    expect(capped).toBe('a'.repeat(48) + '…');
  });

  it('drops what PostgreSQL cannot store: NUL and lone surrogates', () => {
    expect(capText('a\u0000b\ud800c')).toBe('ab\ufffdc');
  });
});
