import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Caller, InvalidToken, isOperator, isPublicKey, TokenVerifier } from '@app/auth';
import { cookieValue, CsrfTokens, Session, sessionCookie } from './session';

export const CONSOLE_TOKEN_VERIFIER = Symbol('CONSOLE_TOKEN_VERIFIER');

/** Thrown where a page needs a session and has none: answered with the sign-in page. */
export class SignInRequired extends Error {
  constructor(readonly reason = '') {
    super(reason || 'sign in first');
  }
}

export type SessionRequest = Request & { session?: Session };

/** Why a caller who is not an operator is turned away, at sign-in and on every page. */
export function notAnOperator(caller: Caller): string {
  return `this console is for operators: the token of ${caller.userId} has neither the admin nor the viewer role`;
}

/**
 * Every page needs a session: the token in the session cookie, verified on every request (so an
 * expired or revoked token ends it), of an operator (a role withdrawn ends it too). Every other
 * method than GET must carry the session's CSRF token.
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
    let caller: Caller;
    try {
      caller = await this.verifier.callerOf(`Bearer ${token}`);
    } catch (error) {
      if (error instanceof InvalidToken) throw new SignInRequired(`your token no longer holds: ${error.message}`);
      throw error;
    }
    if (!isOperator(caller)) throw new ForbiddenException(notAnOperator(caller));
    request.session = { token, caller, csrf: this.csrf.for(token) };
    if (request.method !== 'GET' && !this.csrf.matches(token, (request.body as Record<string, unknown> | undefined)?._csrf)) {
      throw new ForbiddenException('this form was not sent from a page of this console session (CSRF check failed)');
    }
    return true;
  }
}
