import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, ResourcePatternTypes } from 'kafkajs';
import { EventType, eventTypes, topicFor } from '@app/events';
import { deadLetterTopicFor } from '../dead-letters';
import { ensureTopics } from '../topics';
import { externalEvents, KafkaPrincipal, serviceEvents, ServicePrincipal } from './kafka-principals';

interface Grant {
  principal: KafkaPrincipal;
  resource: 'topic' | 'group';
  name: string;
  prefixed?: boolean;
  operation: 'READ' | 'WRITE';
}

/**
 * Least privilege, as a list: each service writes the topics of the events it produces and its own
 * dead letters, reads what it consumes, in its own group, and creates nothing; `external` requests
 * and reads outcomes; `auditor` reads every event topic; `console` reads dead letters and writes
 * event topics (re-drives). Names carry the topic prefix, so ACLs on prefixed topics are literal (a
 * PREFIXED ACL on "task-requested" would not match "t1.task-requested").
 */
export function aclPlan(prefix: string): Grant[] {
  const topic = (type: EventType) => topicFor(type, prefix);
  const grants: Grant[] = [];
  for (const [service, events] of Object.entries(serviceEvents) as Array<[ServicePrincipal, (typeof serviceEvents)[ServicePrincipal]]>) {
    for (const type of events.produces) grants.push({ principal: service, resource: 'topic', name: topic(type), operation: 'WRITE' });
    for (const type of events.consumes) grants.push({ principal: service, resource: 'topic', name: topic(type), operation: 'READ' });
    grants.push({ principal: service, resource: 'topic', name: deadLetterTopicFor(`${prefix}${service}`), operation: 'WRITE' });
    grants.push({ principal: service, resource: 'group', name: `${prefix}${service}`, operation: 'READ' });
  }
  for (const type of externalEvents.produces) grants.push({ principal: 'external', resource: 'topic', name: topic(type), operation: 'WRITE' });
  for (const type of externalEvents.consumes) grants.push({ principal: 'external', resource: 'topic', name: topic(type), operation: 'READ' });
  grants.push({ principal: 'external', resource: 'group', name: `${prefix}external-`, prefixed: true, operation: 'READ' });
  for (const type of eventTypes) {
    grants.push({ principal: 'auditor', resource: 'topic', name: topic(type), operation: 'READ' });
    grants.push({ principal: 'console', resource: 'topic', name: topic(type), operation: 'WRITE' });
  }
  grants.push({ principal: 'auditor', resource: 'group', name: `${prefix}auditor-`, prefixed: true, operation: 'READ' });
  for (const service of Object.keys(serviceEvents)) grants.push({ principal: 'console', resource: 'topic', name: deadLetterTopicFor(`${prefix}${service}`), operation: 'READ' });
  grants.push({ principal: 'console', resource: 'group', name: `${prefix}console-`, prefixed: true, operation: 'READ' });
  return grants;
}

/**
 * Creates the event and dead-letter topics behind `prefix` and grants every principal its ACLs; run
 * as `admin` by `npm run stack:up` (no prefix) and by each test world (its own prefix). Both steps
 * leave what exists as it is, so running it again is harmless.
 */
export async function provisionTopicsAndAcls(adminKafka: Kafka, prefix = '', partitions = 3): Promise<'acls granted' | 'no authorizer'> {
  await ensureTopics(adminKafka, [
    ...eventTypes.map((type) => ({ topic: topicFor(type, prefix), partitions })),
    ...Object.keys(serviceEvents).map((service) => ({ topic: deadLetterTopicFor(`${prefix}${service}`), partitions: 1 })),
  ]);
  const admin = adminKafka.admin();
  await admin.connect();
  try {
    // A broker run without an authorizer (a plain development broker) takes topics but no ACLs.
    const security = await admin.describeAcls({ resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY }).then(
      () => 'on' as const,
      (error: { type?: string }) => {
        if (error.type === 'SECURITY_DISABLED') return 'off' as const;
        throw error;
      },
    );
    if (security === 'off') return 'no authorizer';
    await admin.createAcls({
      acl: aclPlan(prefix).map((grant) => ({
        resourceType: grant.resource === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
        resourceName: grant.name,
        resourcePatternType: grant.prefixed ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
        principal: `User:${grant.principal}`,
        host: '*',
        operation: grant.operation === 'READ' ? AclOperationTypes.READ : AclOperationTypes.WRITE,
        permissionType: AclPermissionTypes.ALLOW,
      })),
    });
    return 'acls granted';
  } finally {
    await admin.disconnect();
  }
}
