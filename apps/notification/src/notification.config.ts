import * as fs from 'node:fs';
import { localAuthFiles } from '@app/auth';
import { parseDuration } from '@app/timing';
import { AllowedTargets, parseAllowedTargets } from './webhooks/destination-policy';
import { SecretBox } from './webhooks/secret-box';

export interface NotificationConfig {
  deliveryTimeoutMs: number;
  maxDeliveryAttempts: number;
  retryInitialMs: number;
  retryMaxMs: number;
  pollIntervalMs: number;
  /** http:// webhooks too (WEBHOOK_ALLOW_INSECURE=on); https only otherwise. */
  allowInsecure: boolean;
  /** Inside addresses an operator lets webhooks reach (WEBHOOK_ALLOWED_TARGETS); none by default. */
  allowedTargets: AllowedTargets;
  /** DNS servers for webhook names (WEBHOOK_DNS_SERVERS); the system's resolver when empty. */
  dnsServers: string[];
  /** How long a rotated-out secret still signs deliveries beside the new one. */
  rotationGraceMs: number;
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
    allowInsecure: env.WEBHOOK_ALLOW_INSECURE === 'on',
    allowedTargets: parseAllowedTargets(env.WEBHOOK_ALLOWED_TARGETS),
    dnsServers: (env.WEBHOOK_DNS_SERVERS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rotationGraceMs: parseDuration(env.WEBHOOK_ROTATION_GRACE || '24h'),
  };
}

/**
 * The box webhook secrets are sealed in: WEBHOOK_SECRET_KEY, or the key `npm run stack:up` made for
 * the local stack. Without either the service refuses to start: it will not store secrets in clear.
 */
export function loadSecretBox(env: NodeJS.ProcessEnv = process.env): SecretBox {
  if (env.WEBHOOK_SECRET_KEY) return new SecretBox(env.WEBHOOK_SECRET_KEY);
  const file = localAuthFiles().webhookSecretKey;
  if (fs.existsSync(file)) return new SecretBox(fs.readFileSync(file, 'utf8').trim());
  throw new Error(`WEBHOOK_SECRET_KEY is not set and ${file} does not exist (npm run stack:up makes it)`);
}
