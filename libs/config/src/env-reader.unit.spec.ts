import { configurationProblems, EnvReader } from './env-reader';
import { ConfigError } from './service.config';

describe('EnvReader', () => {
  it('reads each kind of setting, with its default when unset or empty', () => {
    const read = new EnvReader({ A: '7', B: '', C: '250ms', D: '1s,2m', E: 'on', F: 'x, y ,' }, 'svc');
    expect(read.integer('A', 1)).toBe(7);
    expect(read.integer('B', 3)).toBe(3);
    expect(read.duration('C', '1s')).toBe(250);
    expect(read.durations('D', '')).toEqual([1000, 120_000]);
    expect(read.flag('E', false)).toBe(true);
    expect(read.list('F')).toEqual(['x', 'y']);
    expect(new EnvReader({ S: '64kb', T: '1mb', U: '300' }, 'svc').bytes('S', '1b')).toBe(65_536);
    expect(new EnvReader({ T: '1mb' }, 'svc').bytes('T', '1b')).toBe(1_048_576);
    expect(new EnvReader({}, 'svc').bytes('U', '300')).toBe(300);
    expect(read.done({ ok: true })).toEqual({ ok: true });
  });

  it('reports every problem at once, each naming its variable and what it got', () => {
    const read = new EnvReader({ A: 'seven', C: 'soon', E: 'yes', P: '-1' }, 'svc');
    read.integer('A', 1);
    read.duration('C', '1s');
    read.flag('E', false);
    read.positive('P', 1);
    read.parsed(
      'Q',
      () => {
        throw new Error('not a CIDR');
      },
      null,
    );
    let error: unknown;
    try {
      read.done({});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'A must be a whole number from 0 to 9007199254740991, got "seven"',
      'C must be a duration such as 250ms, 5s, 2m or 1h, got "soon"',
      'E must be "on" or "off", got "yes"',
      'P must be a positive number, got "-1"',
      'Q: not a CIDR',
    ]);
    expect((error as ConfigError).message).toContain('invalid configuration for svc');
  });

  it('gathers the problems of several loaders', () => {
    const failing = (problem: string) => () => {
      throw new ConfigError('x', [problem]);
    };
    expect(configurationProblems([failing('A bad'), () => 1, failing('B bad')])).toEqual(['A bad', 'B bad']);
    expect(configurationProblems([() => 1])).toEqual([]);
  });
});
