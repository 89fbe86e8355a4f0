import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Caller, InvalidToken, isOperator, Public, TokenVerifier } from '@app/auth';
import { html } from '../html/html';
import { page } from '../html/layout';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { CONSOLE_TOKEN_VERIFIER, notAnOperator, SessionRequest } from '../session/console-session.guard';
import { clearedSessionCookieHeader, cookieValue, CsrfTokens, sessionCookieHeader, signInCookie, signInCookieHeader } from '../session/session';

/** Only a path of this console: an absolute or protocol-relative `next` would send the operator elsewhere. */
function localPath(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

function signInForm(next: string, csrf: string, problem = ''): string {
  return page(
    'Sign in',
    html`${problem ? html`<p class="error">${problem}</p>` : ''}
<form method="post" action="/sign-in"><input type="hidden" name="next" value="${next}"><input type="hidden" name="_csrf" value="${csrf}">
<p><label>Bearer token<br><textarea name="token" rows="4" cols="80" required autocomplete="off"></textarea></label></p>
<p><button>Sign in</button></p></form>
<p>For the local stack: <code>npm run -s token -- --user ops --role admin</code> (or <code>--role viewer</code> to look without acting).</p>`,
  );
}

@Controller()
export class SignInController {
  constructor(
    @Inject(CONSOLE_TOKEN_VERIFIER) private readonly verifier: TokenVerifier,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    private readonly csrf: CsrfTokens,
  ) {}

  @Public()
  @Get('sign-in')
  form(@Req() req: Request, @Query('next') next: unknown, @Query('reason') reason: unknown, @Res() res: Response): void {
    this.sendForm(req, res, 200, localPath(next), typeof reason === 'string' ? reason.slice(0, 300) : '');
  }

  @Public()
  @Post('sign-in')
  async signIn(@Req() req: Request, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const next = localPath(body?.next);
    const nonce = cookieValue(req.headers.cookie, signInCookie);
    if (!nonce || !this.csrf.matches(`sign-in:${nonce}`, body?._csrf)) {
      return this.sendForm(req, res, 403, next, 'This sign-in was not sent from this console’s own form (CSRF check failed): sign in here.');
    }
    const token = typeof body?.token === 'string' ? body.token.trim().replace(/^Bearer\s+/i, '') : '';
    let caller: Caller;
    try {
      caller = await this.verifier.callerOf(`Bearer ${token}`);
    } catch (error) {
      if (!(error instanceof InvalidToken)) throw error;
      return this.sendForm(req, res, 401, next, `That token is not accepted: ${error.message}`);
    }
    if (!isOperator(caller)) return this.sendForm(req, res, 403, next, `${notAnOperator(caller)}.`);
    res.setHeader('set-cookie', sessionCookieHeader(token, this.config.secureCookies));
    res.redirect(303, next);
  }

  /** The form with a CSRF token bound to this browser's sign-in nonce (made here when it has none). */
  private sendForm(req: Request, res: Response, status: number, next: string, problem: string): void {
    let nonce = cookieValue(req.headers.cookie, signInCookie);
    if (!nonce || !/^[\w-]{32,64}$/.test(nonce)) {
      nonce = randomBytes(24).toString('base64url');
      res.setHeader('set-cookie', signInCookieHeader(nonce, this.config.secureCookies));
    }
    res
      .status(status)
      .type('html')
      .send(signInForm(next, this.csrf.for(`sign-in:${nonce}`), problem));
  }

  @Post('sign-out')
  signOut(@Req() _req: SessionRequest, @Res() res: Response): void {
    res.setHeader('set-cookie', clearedSessionCookieHeader(this.config.secureCookies));
    res.redirect(303, '/sign-in');
  }
}
