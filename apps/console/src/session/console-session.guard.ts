import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { InvalidToken, isPublicKey, TokenVerifier } from '@app/auth';
import { cookieValue, CsrfTokens, Session, sessionCookie } from './session';

export const CONSOLE_TOKEN_VERIFIER = Symbol('CONSOLE_TOKEN_VERIFIER');

/** Thrown where a page needs a session and has none: answered with the sign-in page. */
export class SignInRequired extends Error {
  constructor(readonly reason = '') {
    super(reason || 'sign in first');
  }
}

export type SessionRequest = Request & { session?: Session };

/**
 * Every page needs a session: the token in the session cookie, verified on every request (so an
 * expired or revoked token ends it). Every other method than GET must carry the session's CSRF token.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(CONSOLE_TOKEN_VERIFIER) private readonly verifier: TokenVerifier,
    private readonly csrf: CsrfTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(isPublicKey, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<SessionRequest>();
    const token = cookieValue(request.headers.cookie, sessionCookie);
    if (!token) throw new SignInRequired();
    try {
      const caller = await this.verifier.callerOf(`Bearer ${token}`);
      request.session = { token, caller, csrf: this.csrf.for(token) };
    } catch (error) {
      if (error instanceof InvalidToken) throw new SignInRequired(`your token no longer holds: ${error.message}`);
      throw error;
    }
    if (request.method !== 'GET' && !this.csrf.matches(token, (request.body as Record<string, unknown> | undefined)?._csrf)) {
      throw new ForbiddenException('this form was not sent from a page of this console session (CSRF check failed)');
    }
    return true;
  }
}
