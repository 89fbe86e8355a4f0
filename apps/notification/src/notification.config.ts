import { parseDuration } from '@app/messaging';

export interface NotificationConfig {
  deliveryTimeoutMs: number;
  maxDeliveryAttempts: number;
  retryInitialMs: number;
  retryMaxMs: number;
  pollIntervalMs: number;
}

export const NOTIFICATION_CONFIG = Symbol('NOTIFICATION_CONFIG');

export function loadNotificationConfig(env: NodeJS.ProcessEnv = process.env): NotificationConfig {
  const attempts = Number(env.WEBHOOK_MAX_ATTEMPTS || 6);
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error(`WEBHOOK_MAX_ATTEMPTS must be an integer ≥ 1, got "${env.WEBHOOK_MAX_ATTEMPTS}"`);
  return {
    deliveryTimeoutMs: parseDuration(env.WEBHOOK_TIMEOUT || '10s'),
    maxDeliveryAttempts: attempts,
    retryInitialMs: parseDuration(env.WEBHOOK_RETRY_INITIAL || '1s'),
    retryMaxMs: parseDuration(env.WEBHOOK_RETRY_MAX || '5m'),
    pollIntervalMs: parseDuration(env.WEBHOOK_POLL_INTERVAL || '500ms'),
  };
}
