import { cookieValue, CsrfTokens, sessionCookieHeader } from './session';

describe('console session', () => {
  it('sets the token in an HttpOnly, SameSite=Strict cookie, and reads it back', () => {
    const header = sessionCookieHeader('a.b=c', false);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Strict');
    expect(header).not.toContain('Secure');
    expect(sessionCookieHeader('t', true)).toContain('; Secure');
    const sent = `other=1; ${header.split(';')[0]}; more=2`;
    expect(cookieValue(sent, 'console_session')).toBe('a.b=c');
    expect(cookieValue(undefined, 'console_session')).toBeUndefined();
    expect(cookieValue('console_session=%E0%A4%A', 'console_session')).toBeUndefined();
  });

  it('accepts only the CSRF token of the same session and process', () => {
    const csrf = new CsrfTokens();
    const token = csrf.for('session-1');
    expect(csrf.matches('session-1', token)).toBe(true);
    expect(csrf.matches('session-2', token)).toBe(false);
    expect(csrf.matches('session-1', undefined)).toBe(false);
    expect(csrf.matches('session-1', `${token}x`)).toBe(false);
    expect(new CsrfTokens().matches('session-1', token)).toBe(false);
  });
});
