import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { html } from '../html/html';
import { page } from '../html/layout';
import { SessionRequest, SignInRequired } from '../session/console-session.guard';

/** Errors as pages: sign-in when there is no session, otherwise the status and what went wrong. */
@Catch()
export class ConsoleErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('console');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<SessionRequest>();
    if (error instanceof SignInRequired) {
      const next = request.method === 'GET' ? request.originalUrl : '/';
      response.redirect(303, `/sign-in?next=${encodeURIComponent(next)}${error.reason ? `&reason=${encodeURIComponent(error.reason)}` : ''}`);
      return;
    }
    const status = error instanceof HttpException ? error.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    const message = error instanceof HttpException ? error.message : 'something went wrong; the console logged it';
    if (!(error instanceof HttpException)) this.logger.error(error);
    response
      .status(status)
      .type('html')
      .send(page(`${status}`, html`<p class="error">${message}</p>`, request.session));
  }
}
