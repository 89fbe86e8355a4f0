export interface QuotaConfig {
  /** What a user is granted the first time the service sees them. */
  defaultQuota: number;
}

export const QUOTA_CONFIG = Symbol('QUOTA_CONFIG');

export function loadQuotaConfig(env: NodeJS.ProcessEnv = process.env): QuotaConfig {
  const raw = env.DEFAULT_QUOTA ?? '10';
  const defaultQuota = Number(raw);
  if (!Number.isInteger(defaultQuota) || defaultQuota < 0) throw new Error(`DEFAULT_QUOTA must be a whole number ≥ 0, got "${raw}"`);
  return { defaultQuota };
}
