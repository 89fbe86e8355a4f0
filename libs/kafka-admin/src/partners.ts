import type { Kafka } from 'kafkajs';
import { overlappingPartner, partnerPrincipal, partnerTopicOf, partnerTopics, requirePartnerName } from '@app/catalogue';
import { ensureTopics } from '@app/kafka';
import { applyGrants, Grant } from './provision';
import { outsideRequestRetentionMs, requestRecordMaxBytes } from './provisioning.config';

/**
 * One partner's ACLs behind `prefix`: it writes its own request topics and reads them back (its own
 * audit), reads its own outcome topics, in consumer groups named `<prefix>partner-<name>-…`; tasks
 * reads its requests and writes its outcomes; the auditor reads its requests. Nobody else is
 * granted anything on them, and the partner nothing elsewhere: another partner's topics and the
 * shared ones are refused by the broker.
 */
export function partnerAclPlan(partner: string, prefix = ''): Grant[] {
  requirePartnerName(partner);
  const principal = partnerPrincipal(partner);
  const { requests, outcomes } = partnerTopics(partner, prefix);
  const topic = (name: string, who: Grant['principal'], operation: Grant['operation']): Grant => ({ principal: who, resource: 'topic', name, operation });
  return [
    ...requests.flatMap((name) => [
      topic(name, principal, 'WRITE'),
      topic(name, principal, 'READ'),
      topic(name, 'tasks', 'READ'),
      topic(name, 'auditor', 'READ'),
    ]),
    ...outcomes.flatMap((name) => [topic(name, principal, 'READ'), topic(name, 'tasks', 'WRITE')]),
    { principal, resource: 'group', name: `${prefix}${principal}-`, prefixed: true, operation: 'READ' },
  ];
}

/**
 * A partner's topics and ACLs behind `prefix`, as admin. Its requests carry its users' input in
 * plaintext and are kept as long as the shared request topic's (TASK_REQUESTED_RETENTION); its
 * outcomes for good, as the shared ones; its requests are records of 256 KiB at most (a dead letter
 * of one always fits). Running it again changes nothing.
 */
export async function provisionPartner(
  adminKafka: Kafka,
  partner: string,
  prefix = '',
  partitions = 3,
  requestRetentionMs = outsideRequestRetentionMs(process.env),
): Promise<'acls granted' | 'no authorizer'> {
  const grants = partnerAclPlan(partner, prefix);
  await refuseOverlappingName(adminKafka, partner, prefix);
  const { requests, outcomes } = partnerTopics(partner, prefix);
  await ensureTopics(adminKafka, [
    ...requests.map((topic) => ({ topic, partitions, retentionMs: requestRetentionMs, maxMessageBytes: requestRecordMaxBytes })),
    ...outcomes.map((topic) => ({ topic, partitions })),
  ]);
  return applyGrants(adminKafka, grants);
}

/** The partners behind `prefix` that the broker has topics of: every partner ever added there (a removed one keeps its topics). */
export async function partnersOnBroker(adminKafka: Kafka, prefix = ''): Promise<string[]> {
  const admin = adminKafka.admin();
  await admin.connect();
  try {
    const partners = (await admin.listTopics()).map((topic) => partnerTopicOf(topic, prefix)?.partner).filter((p): p is string => p !== undefined);
    return [...new Set(partners)];
  } finally {
    await admin.disconnect();
  }
}

/**
 * Refuses a partner whose name overlaps one the broker already has behind `prefix` (`acme` and
 * `acme-corp`): its group grant, by prefix, would cover the other's groups. Every way of adding a
 * partner comes through here, before anything of it is made.
 */
export async function refuseOverlappingName(adminKafka: Kafka, partner: string, prefix = ''): Promise<void> {
  const other = overlappingPartner(partner, await partnersOnBroker(adminKafka, prefix));
  if (other) {
    throw new Error(
      `partner ${JSON.stringify(partner)} is refused: its resource names would overlap partner ${JSON.stringify(other)}'s (one name is the other's plus "-…")`,
    );
  }
}
