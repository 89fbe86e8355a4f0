import { BadRequestException, ForbiddenException } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { taskFilterOf } from './task-filter';

const caller = (userId: string, ...roles: string[]) => ({ userId, roles: new Set(roles) }) as unknown as Caller;

describe("a task search's filter, from a hostile query", () => {
  it('takes the fields it knows, for the caller by default', () => {
    expect(taskFilterOf(caller('ann'), { reportType: 'summary', errorCode: 'MODEL_REJECTED', state: 'FAILED' })).toMatchObject({
      owners: { userId: 'ann' },
      reportType: 'summary',
      errorCode: 'MODEL_REJECTED',
      state: 'FAILED',
    });
  });

  it.each([
    ['an error code that is SQL', { errorCode: "X' OR 1=1 --" }],
    ['an error code of a megabyte', { errorCode: 'A'.repeat(1_000_000) }],
    ['an error code that is not text', { errorCode: ['CANCELLED', 'TIMED_OUT'] }],
    ['a report type that is not one', { reportType: '../../etc' }],
    ['a state that is not one', { state: 'DONE' }],
    ['a creation time that is not one', { createdFrom: 'yesterday' }],
  ])('refuses %s with a 400', (_, query) => {
    expect(() => taskFilterOf(caller('ann'), query)).toThrow(BadRequestException);
  });

  it("refuses another user's tasks, and everyone's, to a plain user (403)", () => {
    expect(() => taskFilterOf(caller('ann'), { userId: 'bob' })).toThrow(ForbiddenException);
    expect(() => taskFilterOf(caller('ann'), { userId: '*' })).toThrow(ForbiddenException);
    expect(taskFilterOf(caller('ops', 'admin'), { userId: '*' }).owners).toEqual({ allUsers: true });
  });

  it('reads a user named like a marker (everyone, all, *) as that user alone', () => {
    expect(taskFilterOf(caller('everyone'), {}).owners).toEqual({ userId: 'everyone' });
    expect(taskFilterOf(caller('everyone'), { userId: 'everyone' }).owners).toEqual({ userId: 'everyone' });
    expect(taskFilterOf(caller('all'), {}).owners).toEqual({ userId: 'all' });
    expect(() => taskFilterOf(caller('everyone'), { userId: '*' })).toThrow(ForbiddenException);
  });
});
