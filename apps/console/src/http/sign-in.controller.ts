import { Body, Controller, Get, Header, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { InvalidToken, Public, TokenVerifier } from '@app/auth';
import { html } from '../html/html';
import { page } from '../html/layout';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { CONSOLE_TOKEN_VERIFIER, SessionRequest } from '../session/console-session.guard';
import { clearedSessionCookieHeader, sessionCookieHeader } from '../session/session';

/** Only a path of this console: an absolute or protocol-relative `next` would send the operator elsewhere. */
function localPath(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

function signInForm(next: string, problem = ''): string {
  return page(
    'Sign in',
    html`${problem ? html`<p class="error">${problem}</p>` : ''}
<form method="post" action="/sign-in"><input type="hidden" name="next" value="${next}">
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
  ) {}

  @Public()
  @Get('sign-in')
  @Header('content-type', 'text/html; charset=utf-8')
  form(@Query('next') next: unknown, @Query('reason') reason: unknown): string {
    return signInForm(localPath(next), typeof reason === 'string' ? reason.slice(0, 300) : '');
  }

  @Public()
  @Post('sign-in')
  async signIn(@Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const token = typeof body?.token === 'string' ? body.token.trim().replace(/^Bearer\s+/i, '') : '';
    try {
      await this.verifier.callerOf(`Bearer ${token}`);
    } catch (error) {
      if (!(error instanceof InvalidToken)) throw error;
      res
        .status(401)
        .type('html')
        .send(signInForm(localPath(body?.next), `That token is not accepted: ${error.message}`));
      return;
    }
    res.setHeader('set-cookie', sessionCookieHeader(token, this.config.secureCookies));
    res.redirect(303, localPath(body?.next));
  }

  @Post('sign-out')
  signOut(@Req() _req: SessionRequest, @Res() res: Response): void {
    res.setHeader('set-cookie', clearedSessionCookieHeader(this.config.secureCookies));
    res.redirect(303, '/sign-in');
  }
}
