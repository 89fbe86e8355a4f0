import { CanActivate, createParamDecorator, ExecutionContext, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Caller, InvalidToken, isPublicKey, TokenVerifier } from '@app/auth';
import { ProblemWithHeaders } from './problem-details.filter';

export const TOKEN_VERIFIER = Symbol('TOKEN_VERIFIER');
/** The verified caller of a request, as the guard put it there. */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  return context.switchToHttp().getRequest<Request & { caller: Caller }>().caller;
});

/**
 * Every route needs `Authorization: Bearer <JWT>` unless it is marked @Public(): a token that does
 * not verify is answered 401 with `WWW-Authenticate: Bearer`, saying what is wrong with it.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TOKEN_VERIFIER) private readonly verifier: TokenVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(isPublicKey, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request & { caller?: Caller }>();
    try {
      request.caller = await this.verifier.callerOf(request.headers.authorization);
      return true;
    } catch (error) {
      if (!(error instanceof InvalidToken)) throw error;
      const description = error.message.replace(/["\\]/g, '');
      throw new ProblemWithHeaders(HttpStatus.UNAUTHORIZED, error.message, {
        'WWW-Authenticate': `Bearer realm="task-platform", error="invalid_token", error_description="${description}"`,
      });
    }
  }
}
