import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { localAuthFiles } from '@app/auth';
import { partnerPrincipal, requirePartnerName } from '@app/catalogue';
import { createKafka, localKafkaCredentials } from '@app/kafka';
import { applyGrants, partnerAclPlan, provisionPartner, refuseOverlappingName } from '@app/kafka-admin';
import { javaClasspathArgs } from './kafka';
import { ensureRegistryPasswords } from './registry-gate';
import { kafkaBootstrap, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

/**
 * A partner on the running local stack: its principal's SCRAM credential on the brokers (Kafka's own
 * ConfigCommand, as admin: kafkajs cannot make users), its registry password (the gate reads its
 * password file at every request), its topics and ACLs behind each prefix. Its passwords join the
 * stack's, so that a broker formatted again (npm run stack:up --brokers 3) has them too. Adding a
 * partner that exists changes nothing but its topics, for a new prefix.
 */
export async function addPartner(config: StackConfig, partner: string, prefixes: string[] = ['']): Promise<{ principal: string }> {
  requirePartnerName(partner);
  const principal = partnerPrincipal(partner);
  const kafka = adminKafka(config);
  // Before its credentials are made: a refused name leaves nothing behind.
  for (const prefix of prefixes) await refuseOverlappingName(kafka, partner, prefix);
  const files = localAuthFiles(config.stackDir);
  const kafkaPassword = addPassword(files.kafkaCredentials, files.kafkaPasswordFile(principal), principal);
  addPassword(files.registryCredentials, files.registryPasswordFile(principal), principal);
  ensureRegistryPasswords(config.stackDir);
  await setScramCredential(config, principal, kafkaPassword);
  for (const prefix of prefixes) await provisionPartner(kafka, partner, prefix);
  return { principal };
}

/** The partners the stack knows: those whose passwords it keeps. */
export function knownPartners(config: StackConfig): string[] {
  const file = localAuthFiles(config.stackDir).kafkaCredentials;
  if (!fs.existsSync(file)) return [];
  return Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>)
    .filter((principal) => principal.startsWith('partner-'))
    .map((principal) => principal.slice('partner-'.length));
}

/** A principal's password in `allFile` (made once), and in its own file. */
function addPassword(allFile: string, oneFile: string, principal: string): string {
  const all = JSON.parse(fs.readFileSync(allFile, 'utf8')) as Record<string, string>;
  if (!all[principal]) {
    all[principal] = randomBytes(18).toString('base64url');
    writeAtomically(allFile, JSON.stringify(all, null, 2));
  }
  fs.writeFileSync(oneFile, all[principal], { mode: 0o644 });
  return all[principal];
}

/**
 * A partner taken away: its SCRAM credential deleted from the brokers, its passwords from the stack's
 * (the registry's password file with them), its ACLs behind each prefix withdrawn. Its topics stay:
 * they are the record of what it asked and was answered.
 */
export async function removePartner(config: StackConfig, partner: string, prefixes: string[] = ['']): Promise<void> {
  requirePartnerName(partner);
  const principal = partnerPrincipal(partner);
  const files = localAuthFiles(config.stackDir);
  await configCommand(config, ['--alter', '--entity-type', 'users', '--entity-name', principal, '--delete-config', 'SCRAM-SHA-512']);
  for (const [allFile, oneFile] of [
    [files.kafkaCredentials, files.kafkaPasswordFile(principal)],
    [files.registryCredentials, files.registryPasswordFile(principal)],
  ]) {
    const all = JSON.parse(fs.readFileSync(allFile, 'utf8')) as Record<string, string>;
    delete all[principal];
    writeAtomically(allFile, JSON.stringify(all, null, 2));
    fs.rmSync(oneFile, { force: true });
  }
  ensureRegistryPasswords(config.stackDir);
  const kafka = adminKafka(config);
  for (const prefix of prefixes) await applyGrants(kafka, [], partnerAclPlan(partner, prefix));
}

function adminKafka(config: StackConfig) {
  const admin = localKafkaCredentials('admin', config.stackDir)!;
  return createKafka('partners', kafkaBootstrap(config), { sasl: { mechanism: 'scram-sha-512', ...admin }, ssl: undefined });
}

function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, text, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** SCRAM-SHA-512 for `principal` on the brokers. */
function setScramCredential(config: StackConfig, principal: string, password: string): Promise<void> {
  return configCommand(config, [
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    principal,
    '--add-config',
    `SCRAM-SHA-512=[iterations=4096,password=${password}]`,
  ]);
}

/** Kafka's ConfigCommand on the stack's brokers, as admin (its credential in a file of the run folder, one per call since
 * a test may remove two partners at once, gone after). */
async function configCommand(config: StackConfig, args: string[]): Promise<void> {
  const admin = localKafkaCredentials('admin', config.stackDir)!;
  const commandConfig = path.join(config.runDir, `partner-admin.${process.pid}.${randomUUID()}.properties`);
  fs.writeFileSync(
    commandConfig,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=SCRAM-SHA-512',
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${admin.password}";`,
    ].join('\n'),
    { mode: 0o600 },
  );
  try {
    await promisify(execFile)(requireCommand('java', 'default-jre-headless'), [
      ...javaClasspathArgs(config),
      'kafka.admin.ConfigCommand',
      '--bootstrap-server',
      kafkaBootstrap(config).join(','),
      '--command-config',
      commandConfig,
      ...args,
    ]);
  } finally {
    fs.rmSync(commandConfig, { force: true });
  }
}
