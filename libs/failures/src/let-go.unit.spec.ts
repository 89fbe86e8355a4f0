import { letGo } from './let-go';

describe('letGo', () => {
  const lines: string[] = [];
  const log = { debug: (m: string) => lines.push(`debug ${m}`), warn: (m: string) => lines.push(`warn ${m}`) };
  beforeEach(() => (lines.length = 0));

  it('answers the fallback and writes why, with the failure, at debug unless told', async () => {
    expect(await Promise.reject(new Error('connection closed')).catch(letGo('closing the admin client whatever it answers', log))).toBeUndefined();
    expect(await Promise.reject('ENODATA').catch(letGo('no IPv6 address', log, { level: 'warn', fallback: [] as string[] }))).toEqual([]);
    expect(lines).toEqual(['debug closing the admin client whatever it answers (connection closed)', 'warn no IPv6 address (ENODATA)']);
  });
});
