import { logLevelsFrom } from './log-levels';

describe('logLevelsFrom', () => {
  it('includes the named level and every more severe one', () => {
    expect(logLevelsFrom('warn')).toEqual(['fatal', 'error', 'warn']);
    expect(logLevelsFrom('debug')).toEqual(['fatal', 'error', 'warn', 'log', 'debug']);
  });

  it('falls back when the level is missing or unknown', () => {
    expect(logLevelsFrom(undefined)).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(logLevelsFrom('loud', 'error')).toEqual(['fatal', 'error']);
  });
});
