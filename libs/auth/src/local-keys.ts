import * as fs from 'node:fs';
import * as path from 'node:path';

let cachedRoot: string | undefined;

/** The repository root (where nest-cli.json is), found by walking up, so sources and dist/ agree. */
export function repositoryRoot(): string {
  if (cachedRoot) return cachedRoot;
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'nest-cli.json'))) return (cachedRoot = dir);
  }
  return (cachedRoot = process.cwd());
}

/**
 * Where the local stack keeps its signing key pair: the public JWKS the services verify with by
 * default, and the private key `npm run token` signs with. Under STACK_DIR, like the rest of the stack.
 */
export function localAuthFiles(stackDir = process.env.STACK_DIR || path.join(repositoryRoot(), '.stack')) {
  const dir = path.join(stackDir, 'auth');
  return {
    dir,
    jwks: path.join(dir, 'jwks.json'),
    privateKey: path.join(dir, 'signing-key.jwk.json'),
    /** The key webhook secrets are sealed with at rest (WEBHOOK_SECRET_KEY's local default). */
    webhookSecretKey: path.join(dir, 'webhook-secret.key'),
    /** The master keys users' data keys are wrapped under (MASTER_KEYS_FILE's local default; docs/privacy.md). */
    masterKeys: path.join(dir, 'master-keys.json'),
    /** The local broker's SCRAM principals and their passwords (`npm run -s kafka:credentials -- <principal>`). */
    kafkaCredentials: path.join(dir, 'kafka-credentials.json'),
    /** One principal's password alone (KAFKA_PASSWORD_FILE; docker/compose.yml mounts each as a secret). */
    kafkaPasswordFile: (principal: string) => path.join(dir, `kafka-${principal}.password`),
    /** The local registry's principals and their passwords (`npm run -s kafka:credentials -- <principal>` prints them with the Kafka ones). */
    registryCredentials: path.join(dir, 'registry-credentials.json'),
    /** One principal's registry password alone (SCHEMA_REGISTRY_PASSWORD_FILE). */
    registryPasswordFile: (principal: string) => path.join(dir, `registry-${principal}.password`),
    /** What the registry's gate checks Basic credentials against: one hashed line per principal. */
    registryHtpasswd: path.join(dir, 'registry.htpasswd'),
    /** The local broker's TLS listener: its PKCS#12 keystore and the CA certificate clients trust. */
    kafkaKeystore: path.join(dir, 'kafka-tls.p12'),
    kafkaCa: path.join(dir, 'kafka-ca.pem'),
  };
}

/** The local stack's issuer and audience: what `npm run token` writes and the services expect by default. */
export const localIssuer = 'task-platform-local';
export const localAudience = 'task-platform';
