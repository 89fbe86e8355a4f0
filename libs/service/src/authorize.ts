import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { Caller, isViewer, mayActFor, mayRead } from '@app/auth';

/** Another user's quota, notifications or webhook: 403 (their user id is in the path already). */
export function requireMayRead(caller: Caller, userId: string): void {
  if (!mayRead(caller, userId)) throw new ForbiddenException(`you may read only your own data, not ${userId}'s`);
}

export function requireMayActFor(caller: Caller, userId: string): void {
  if (isViewer(caller)) throw new ForbiddenException('a viewer reads, and changes nothing');
  if (!mayActFor(caller, userId)) throw new ForbiddenException(`you may act only for yourself, not for ${userId}`);
}

/** Another user's task or generation: 404, the same answer as one that does not exist. */
export function visibleOrNotFound<T>(caller: Caller, found: T | undefined, ownerOf: (found: T) => string, what: string): T {
  if (found === undefined || found === null || !mayRead(caller, ownerOf(found))) throw new NotFoundException(`no ${what}`);
  return found;
}
