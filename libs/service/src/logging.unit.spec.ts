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
