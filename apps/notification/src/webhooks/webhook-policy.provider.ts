import type { Provider } from '@nestjs/common';
import { loadSecretBox, NOTIFICATION_CONFIG, NotificationConfig } from '../notification.config';
import { SecretBox } from './secret-box';
import { WebhookResolver } from './webhook-resolver';
import { UrlPolicy } from './webhook-url';

export const WEBHOOK_POLICY = Symbol('WEBHOOK_POLICY');

/** Where webhooks may go (one policy for registration and delivery), and the box their secrets are sealed in. */
export const webhookProviders: Array<Provider & { provide: symbol | typeof SecretBox }> = [
  {
    provide: WEBHOOK_POLICY,
    inject: [NOTIFICATION_CONFIG],
    useFactory: (config: NotificationConfig): UrlPolicy => ({
      allowInsecure: config.allowInsecure,
      allowed: config.allowedTargets,
      resolver: new WebhookResolver(config.dnsServers),
    }),
  },
  { provide: SecretBox, useFactory: () => loadSecretBox() },
];
