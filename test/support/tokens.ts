import { Role } from '@app/auth';
import { signLocalToken } from '../../tools/auth/sign-token';

const cache = new Map<string, Promise<string>>();

/** A token for `userId` signed with the local stack's key (one per user and roles, for the run). */
export function tokenFor(userId: string, ...roles: Role[]): Promise<string> {
  const key = `${userId}|${roles.join(',')}`;
  let token = cache.get(key);
  if (!token) cache.set(key, (token = signLocalToken({ userId, roles, ttl: '2h' })));
  return token;
}

/** The Authorization header of `userId`. */
export async function authAs(userId: string, ...roles: Role[]): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await tokenFor(userId, ...roles)}` };
}

/** An operator who may read everything and act for anyone: what tests use to look. */
export const asAdmin = () => authAs('test-admin', 'admin');
