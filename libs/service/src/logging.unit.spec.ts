import { scrubSecrets } from './logging';

describe('scrubSecrets', () => {
  it('hides the password of a URL, keeping the rest', () => {
    expect(scrubSecrets('connect ECONNREFUSED postgres://svc:s3cr%40t@db:5432/tasks failed')).toBe(
      'connect ECONNREFUSED postgres://svc:***@db:5432/tasks failed',
    );
    expect(scrubSecrets('https://hooks.example.com/a?b=c')).toBe('https://hooks.example.com/a?b=c');
  });

  it('hides bearer tokens, bare JWTs and webhook secrets', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl';
    expect(scrubSecrets(`authorization: Bearer ${jwt}`)).toBe('authorization: Bearer ***');
    expect(scrubSecrets(`token ${jwt} refused`)).toBe('token *** refused');
    expect(scrubSecrets('secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw= rotated')).toBe('secret whsec_*** rotated');
  });
});

describe('scrubSecrets on attacker text', () => {
  // The shapes that made the old patterns backtrack: each start of a scheme or a token scanned to the
  // end of the text. A megabyte of them took minutes; linear patterns take milliseconds, far inside
  // this test's own deadline.
  const megabyteOf = (unit: string) => unit.repeat(Math.ceil(2 ** 20 / unit.length));

  it.each(['a.', 'eyJ-', 'eyJa..', 'a+', 'a:/'])(
    'scrubs a megabyte of %j within the test deadline, changing nothing',
    (unit) => {
      const text = `/${megabyteOf(unit)}`;
      expect(scrubSecrets(text)).toBe(text);
    },
    5_000,
  );

  it.each([
    ['eyJa.', /eyJa\.eyJa\.eyJa/],
    ['bearer ', /bearer bearer/],
  ])(
    'scrubs a megabyte of %j, which looks like secrets, within the test deadline',
    (unit, secretLeft) => {
      expect(scrubSecrets(megabyteOf(unit))).not.toMatch(secretLeft);
    },
    5_000,
  );

  it('still finds a secret at the end of a megabyte of the worst shape', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl';
    const scrubbedText = scrubSecrets(`${megabyteOf('a.')} postgres://svc:pw@db/tasks ${jwt}`);
    expect(scrubbedText.endsWith(' postgres://svc:***@db/tasks ***')).toBe(true);
  }, 5_000);
});
