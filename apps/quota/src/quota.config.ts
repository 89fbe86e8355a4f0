import { EnvReader } from '@app/config';

export interface QuotaConfig {
  /** What a user is granted the first time the service sees them. */
  defaultQuota: number;
}

export const QUOTA_CONFIG = Symbol('QUOTA_CONFIG');

export function loadQuotaConfig(env: NodeJS.ProcessEnv = process.env): QuotaConfig {
  const read = new EnvReader(env, 'quota');
  return read.done({ defaultQuota: read.integer('DEFAULT_QUOTA', 10, { min: 0, max: 2 ** 31 - 1 }) });
}
