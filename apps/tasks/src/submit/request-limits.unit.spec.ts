import { checkInput, defaultInputLimits, inputTooLarge } from './request-limits';

const nested = (depth: number): Record<string, unknown> => (depth <= 1 ? {} : { a: nested(depth - 1) });

describe('the limits of a request input', () => {
  const limits = { ...defaultInputLimits, simulation: true };

  it('accepts an input within every limit', () => {
    expect(checkInput({ text: 'quarterly numbers', rows: [1, 2, 3], nested: nested(31) }, limits)).toBeUndefined();
  });

  it('refuses an input deeper than 32 levels, counting the input itself as one', () => {
    expect(checkInput(nested(32), limits)).toBeUndefined();
    expect(checkInput(nested(33), limits)).toMatchObject({ code: 'INPUT_TOO_DEEP', message: 'input must be at most 32 levels deep' });
  });

  it('refuses an input text over the byte limit, counting UTF-8 bytes, not characters', () => {
    expect(inputTooLarge('a'.repeat(65_536), limits)).toBeUndefined();
    expect(inputTooLarge('a'.repeat(65_537), limits)).toMatchObject({ code: 'INPUT_TOO_LARGE', message: 'input must be at most 65536 bytes' });
    expect(inputTooLarge('é'.repeat(32_769), limits)).toMatchObject({ code: 'INPUT_TOO_LARGE' });
  });

  it('refuses an input of more than 10,000 values', () => {
    expect(checkInput({ rows: Array.from({ length: 9_998 }, () => 0) }, limits)).toBeUndefined();
    expect(checkInput({ rows: Array.from({ length: 10_000 }, () => 0) }, limits)).toMatchObject({ code: 'INPUT_TOO_LARGE' });
  });

  it('refuses a NUL or a lone surrogate anywhere, keys included, naming where', () => {
    expect(checkInput({ note: 'a\u0000b' }, limits)).toMatchObject({ code: 'UNSTORABLE_TEXT', message: expect.stringContaining('input.note') });
    expect(checkInput({ list: ['ok', '\ud800'] }, limits)).toMatchObject({ message: expect.stringContaining('input.list[1]') });
    expect(checkInput({ ['\udc00']: 1 }, limits)).toMatchObject({ code: 'UNSTORABLE_TEXT' });
    expect(checkInput({ emoji: '😀 fine' }, limits)).toBeUndefined();
  });

  it('refuses input.simulate unless simulation is on', () => {
    expect(checkInput({ simulate: { hang: true } }, { ...limits, simulation: false })).toMatchObject({ code: 'SIMULATION_OFF' });
    expect(checkInput({ simulate: { hang: true } }, limits)).toBeUndefined();
  });
});
