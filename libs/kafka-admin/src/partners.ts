import type { Kafka } from 'kafkajs';
import { partnerNamePattern, partnerPrincipal, partnerTopics } from '@app/catalogue';
import { ensureTopics } from '@app/kafka';
import { applyGrants, Grant } from './provision';
import { outsideRequestRetentionMs } from './provisioning.config';

/**
 * One partner's ACLs behind `prefix`: it writes its own request topics and reads them back (its own
 * audit), reads its own outcome topics, in consumer groups named `<prefix>partner-<name>-…`; tasks
 * reads its requests and writes its outcomes; the auditor reads its requests. Nobody else is
 * granted anything on them, and the partner nothing elsewhere: another partner's topics and the
 * shared ones are refused by the broker.
 */
export function partnerAclPlan(partner: string, prefix = ''): Grant[] {
  if (!partnerNamePattern.test(partner)) throw new Error(`a partner's name must match ${partnerNamePattern}: ${JSON.stringify(partner)}`);
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
 * outcomes for good, as the shared ones. Running it again changes nothing.
 */
export async function provisionPartner(
  adminKafka: Kafka,
  partner: string,
  prefix = '',
  partitions = 3,
  requestRetentionMs = outsideRequestRetentionMs(process.env),
): Promise<'acls granted' | 'no authorizer'> {
  const grants = partnerAclPlan(partner, prefix);
  const { requests, outcomes } = partnerTopics(partner, prefix);
  await ensureTopics(adminKafka, [
    ...requests.map((topic) => ({ topic, partitions, retentionMs: requestRetentionMs })),
    ...outcomes.map((topic) => ({ topic, partitions })),
  ]);
  return applyGrants(adminKafka, grants);
}
