import { EnvReader } from '@app/config';
import type { Allowances } from './partners/allowances';

export type QuotaConfig = Allowances;

export const QUOTA_CONFIG = Symbol('QUOTA_CONFIG');

export function loadQuotaConfig(env: NodeJS.ProcessEnv = process.env): QuotaConfig {
  const read = new EnvReader(env, 'quota');
  const units = { min: 0, max: 2 ** 31 - 1 };
  return read.done({
    defaultQuota: read.integer('DEFAULT_QUOTA', 10, units),
    partnerDefaults: { newUserQuota: read.integer('PARTNER_NEW_USER_QUOTA', 10, units), drawCap: read.integer('PARTNER_DRAW_CAP', 1000, units) },
  });
}
