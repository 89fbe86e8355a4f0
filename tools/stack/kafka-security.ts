import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { localAuthFiles } from '@app/auth';
import { ensurePrincipalPasswords } from './principal-passwords';
import { requireCommand } from './toolchain';

export interface BrokerSecrets {
  passwords: Record<string, string>;
  keystore: string;
  keystorePassword: string;
}

/**
 * Every principal's SCRAM password, made once under the stack folder, kept together (the broker is
 * formatted with all of them) and one file per principal (a client is given its own alone).
 */
export function ensureKafkaPasswords(stackDir: string): Record<string, string> {
  const files = localAuthFiles(stackDir);
  return ensurePrincipalPasswords(files.kafkaCredentials, files.kafkaPasswordFile);
}

/**
 * The local broker's secrets: the principals' passwords (the admin's also guards the controller
 * listener, over SASL/PLAIN), and a self-signed certificate for the TLS listener, made with the JDK's
 * keytool for the brokers' addresses, with its certificate exported as the CA clients trust.
 */
export function ensureBrokerSecrets(stackDir: string, hosts: string[] = ['127.0.0.1']): BrokerSecrets {
  const files = localAuthFiles(stackDir);
  const passwords = ensureKafkaPasswords(stackDir);
  const keystorePassword = passwords.admin;
  if (!fs.existsSync(files.kafkaKeystore) || !fs.existsSync(files.kafkaCa)) {
    const keytool = requireCommand('keytool', 'default-jre-headless');
    fs.rmSync(files.kafkaKeystore, { force: true });
    execFileSync(
      keytool,
      [
        '-genkeypair',
        '-alias',
        'broker',
        '-keyalg',
        'RSA',
        '-keysize',
        '2048',
        '-validity',
        '3650',
        '-dname',
        'CN=localhost',
        '-ext',
        `SAN=${[...new Set(['127.0.0.1', ...hosts])].map((host) => `ip:${host}`).join(',')},dns:localhost`,
        '-storetype',
        'PKCS12',
        '-keystore',
        files.kafkaKeystore,
        '-storepass',
        keystorePassword,
        '-keypass',
        keystorePassword,
      ],
      { stdio: 'ignore' },
    );
    const pem = execFileSync(keytool, ['-exportcert', '-rfc', '-alias', 'broker', '-keystore', files.kafkaKeystore, '-storepass', keystorePassword], {
      encoding: 'utf8',
    });
    fs.writeFileSync(files.kafkaCa, pem);
  }
  return { passwords, keystore: files.kafkaKeystore, keystorePassword };
}

/** The broker's listeners and authorizer: SCRAM-SHA-512 for clients (plain and TLS), PLAIN for the controller, ACLs enforced. */
export function securityProperties(secrets: BrokerSecrets, host: string, ports: { client: number; controller: number; tls: number }): Record<string, string> {
  const admin = secrets.passwords.admin;
  return {
    listeners: `SASL_PLAINTEXT://${host}:${ports.client},CONTROLLER://${host}:${ports.controller},SASL_SSL://${host}:${ports.tls}`,
    'advertised.listeners': `SASL_PLAINTEXT://${host}:${ports.client},SASL_SSL://${host}:${ports.tls}`,
    'listener.security.protocol.map': 'CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    'inter.broker.listener.name': 'SASL_PLAINTEXT',
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${admin}" user_admin="${admin}";`,
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${admin}";`,
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${admin}";`,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': secrets.keystore,
    'ssl.keystore.password': secrets.keystorePassword,
    'ssl.key.password': secrets.keystorePassword,
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users': 'User:admin',
    'allow.everyone.if.no.acl.found': 'false',
  };
}

/** StorageTool's arguments that create every principal's SCRAM credential in the metadata log at format time. */
export function scramFormatArguments(secrets: BrokerSecrets): string[] {
  return Object.entries(secrets.passwords).flatMap(([name, password]) => ['--add-scram', `SCRAM-SHA-512=[name=${name},password=${password}]`]);
}

/** Written beside a storage formatted with the principals, so an older (plaintext) storage is recognised and made again. */
export function secureFormatMarker(dataDir: string): string {
  return `${dataDir}-sasl-formatted`;
}
