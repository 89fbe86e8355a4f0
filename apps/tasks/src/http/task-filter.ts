import { BadRequestException, ForbiddenException } from '@nestjs/common';
import { Caller, isAdmin } from '@app/auth';
import { reportTypeMaxLength, reportTypePattern } from '@app/events';
import { optionalInstant, requireMayRead, requireText } from '@app/service';
import { taskStates } from '@app/task-state';
import type { TaskFilter } from '../projection/task-search';

const errorCodePattern = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * A search's filter from its query: `userId` (the caller when absent; `*` is everyone, for an
 * operator), `state`, `reportType`, `errorCode` (as TaskFailed names it), `createdFrom`, `createdBefore`.
 */
export function taskFilterOf(caller: Caller, query: Record<string, unknown>): TaskFilter {
  const { userId, state, reportType, errorCode } = query;
  const owner = userId === undefined ? caller.userId : requireText(userId, 'userId query parameter', { max: 128 });
  if (owner === '*' && !isAdmin(caller) && !caller.roles.has('viewer')) throw new ForbiddenException("only an operator lists everyone's tasks");
  if (owner !== '*') requireMayRead(caller, owner);
  if (state !== undefined && !(taskStates as readonly unknown[]).includes(state)) {
    throw new BadRequestException(`state must be one of ${taskStates.join(', ')}, got "${String(state)}"`);
  }
  return {
    owners: owner === '*' ? { allUsers: true } : { userId: owner },
    state: state as string | undefined,
    reportType:
      reportType === undefined ? undefined : requireText(reportType, 'reportType query parameter', { max: reportTypeMaxLength, pattern: reportTypePattern }),
    errorCode: errorCode === undefined ? undefined : requireText(errorCode, 'errorCode query parameter', { max: 64, pattern: errorCodePattern }),
    createdFrom: optionalInstant(query.createdFrom, 'createdFrom'),
    createdBefore: optionalInstant(query.createdBefore, 'createdBefore'),
  };
}
