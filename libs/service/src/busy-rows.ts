import { HttpStatus } from '@nestjs/common';
import { isLockTimeout } from '@app/database';
import { ProblemWithHeaders } from './problem-details.filter';

/** `work`, with a row held past the lock timeout answered 409 and `Retry-After: 1`: the caller asks again shortly (`detail` says what was busy). */
export async function conflictWhenBusy<T>(work: () => Promise<T>, detail: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isLockTimeout(error)) throw new ProblemWithHeaders(HttpStatus.CONFLICT, detail, { 'Retry-After': '1' });
    throw error;
  }
}
