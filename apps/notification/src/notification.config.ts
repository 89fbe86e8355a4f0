import * as fs from 'node:fs';
import { localAuthFiles } from '@app/auth';
import { EnvReader } from '@app/config';
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
  const read = new EnvReader(env, 'notification');
  return read.done({
    deliveryTimeoutMs: read.duration('WEBHOOK_TIMEOUT', '10s'),
    maxDeliveryAttempts: read.integer('WEBHOOK_MAX_ATTEMPTS', 6, { min: 1, max: 100 }),
    retryInitialMs: read.duration('WEBHOOK_RETRY_INITIAL', '1s'),
    retryMaxMs: read.duration('WEBHOOK_RETRY_MAX', '5m'),
    pollIntervalMs: read.duration('WEBHOOK_POLL_INTERVAL', '500ms'),
    allowInsecure: read.flag('WEBHOOK_ALLOW_INSECURE', false),
    allowedTargets: read.parsed('WEBHOOK_ALLOWED_TARGETS', parseAllowedTargets, parseAllowedTargets(undefined)),
    dnsServers: read.list('WEBHOOK_DNS_SERVERS'),
    rotationGraceMs: read.duration('WEBHOOK_ROTATION_GRACE', '24h'),
  });
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
