import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Admin, Kafka, ResourcePatternTypes } from 'kafkajs';
import { EventType, eventTypes, keyEventTypes, topicFor } from '@app/events';
import {
  deadLetterTopicFor,
  externalEvents,
  KafkaPrincipal,
  PartnerPrincipal,
  redriveLogTopic,
  redriveRequestTopic,
  serviceEvents,
  consumerGroupsOf,
  ServicePrincipal,
} from '@app/catalogue';
import { ensureTopics } from '@app/kafka';
import { deadLetterRecordMaxBytes, keyCompactionAfterMs, legacyExternalOn, outsideRequestRetentionMs, requestRecordMaxBytes } from './provisioning.config';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Grant {
  principal: KafkaPrincipal | PartnerPrincipal;
  resource: 'topic' | 'group';
  name: string;
  prefixed?: boolean;
  operation: 'READ' | 'WRITE';
}

/**
 * Least privilege, as a list: each service writes the topics of the events it produces and its own
 * dead letters, reads what it consumes, in its own group, and creates nothing; it also reads its own
 * dead letters and re-drive requests and writes its re-drive log (a re-drive is its own work);
 * `external` requests and reads outcomes; `auditor` reads every event topic but the keys'; `console`
 * reads dead letters and re-drive logs and writes re-drive requests, and no event topic (it cannot
 * mint an event). Names carry the topic prefix, so ACLs on prefixed topics are literal (a PREFIXED
 * ACL on "task-requested" would not match "t1.task-requested").
 */
export function aclPlan(prefix: string, withLegacyExternal = legacyExternalOn(process.env)): Grant[] {
  const topic = (type: EventType) => topicFor(type, prefix);
  const grants: Grant[] = [];
  for (const [service, events] of Object.entries(serviceEvents) as Array<[ServicePrincipal, (typeof serviceEvents)[ServicePrincipal]]>) {
    for (const type of events.produces) grants.push({ principal: service, resource: 'topic', name: topic(type), operation: 'WRITE' });
    for (const type of events.consumes) grants.push({ principal: service, resource: 'topic', name: topic(type), operation: 'READ' });
    const group = `${prefix}${service}`;
    grants.push({ principal: service, resource: 'topic', name: deadLetterTopicFor(group), operation: 'WRITE' });
    for (const { group: own } of consumerGroupsOf(service)) grants.push({ principal: service, resource: 'group', name: `${prefix}${own}`, operation: 'READ' });
    // Its side of a re-drive: the requests, in a group of their own; its dead letters and log, read with throwaway groups.
    grants.push({ principal: service, resource: 'topic', name: redriveRequestTopic(group), operation: 'READ' });
    grants.push({ principal: service, resource: 'group', name: `${group}.redrives`, operation: 'READ' });
    grants.push({ principal: service, resource: 'topic', name: deadLetterTopicFor(group), operation: 'READ' });
    grants.push({ principal: service, resource: 'topic', name: redriveLogTopic(group), operation: 'READ' });
    grants.push({ principal: service, resource: 'topic', name: redriveLogTopic(group), operation: 'WRITE' });
    grants.push({ principal: service, resource: 'group', name: `${group}.reader-`, prefixed: true, operation: 'READ' });
  }
  if (withLegacyExternal) grants.push(...legacyExternalGrants(prefix));
  // The keys' topic is for the services that need the keys: an auditor or a re-drive has no use for them.
  for (const type of eventTypes.filter((t) => !(keyEventTypes as readonly string[]).includes(t))) {
    grants.push({ principal: 'auditor', resource: 'topic', name: topic(type), operation: 'READ' });
  }
  grants.push({ principal: 'auditor', resource: 'group', name: `${prefix}auditor-`, prefixed: true, operation: 'READ' });
  for (const service of Object.keys(serviceEvents)) {
    grants.push({ principal: 'console', resource: 'topic', name: deadLetterTopicFor(`${prefix}${service}`), operation: 'READ' });
    grants.push({ principal: 'console', resource: 'topic', name: redriveLogTopic(`${prefix}${service}`), operation: 'READ' });
    grants.push({ principal: 'console', resource: 'topic', name: redriveRequestTopic(`${prefix}${service}`), operation: 'WRITE' });
  }
  grants.push({ principal: 'console', resource: 'group', name: `${prefix}console-`, prefixed: true, operation: 'READ' });
  return grants;
}

/**
 * The single-partner default, `external`: it requests on the shared topics (for users of no
 * partner's namespace) and reads the shared outcome topics, which hold every user's outcomes, a
 * partner's users' too. Kept for a deprecation period (LEGACY_EXTERNAL, on by default); a deployment
 * with partners turns it off once its integrations moved (docs/ingress.md).
 */
function legacyExternalGrants(prefix: string): Grant[] {
  return [
    ...externalEvents.produces.map((type) => ({
      principal: 'external' as const,
      resource: 'topic' as const,
      name: topicFor(type, prefix),
      operation: 'WRITE' as const,
    })),
    ...externalEvents.consumes.map((type) => ({
      principal: 'external' as const,
      resource: 'topic' as const,
      name: topicFor(type, prefix),
      operation: 'READ' as const,
    })),
    { principal: 'external', resource: 'group', name: `${prefix}external-`, prefixed: true, operation: 'READ' },
  ];
}

/**
 * Grants an earlier version of the plan made and this one does not: withdrawn when a stack is
 * provisioned again, so that an upgraded deployment keeps least privilege too.
 */
export function withdrawnGrants(prefix: string, withLegacyExternal = legacyExternalOn(process.env)): Grant[] {
  // The console once re-drove by writing event topics itself, and logged its re-drives.
  return [
    ...(withLegacyExternal ? [] : legacyExternalGrants(prefix)),
    ...eventTypes.map((type) => ({ principal: 'console' as const, resource: 'topic' as const, name: topicFor(type, prefix), operation: 'WRITE' as const })),
    ...Object.keys(serviceEvents).map((service) => ({
      principal: 'console' as const,
      resource: 'topic' as const,
      name: redriveLogTopic(`${prefix}${service}`),
      operation: 'WRITE' as const,
    })),
  ];
}

/**
 * Creates the event and dead-letter topics behind `prefix` and grants every principal its ACLs; run
 * as `admin` by `npm run stack:up` (no prefix) and by each test world (its own prefix). Both steps
 * leave what exists as it is, so running it again is harmless.
 */
export async function provisionTopicsAndAcls(
  adminKafka: Kafka,
  prefix = '',
  partitions = 3,
  requestRetentionMs = outsideRequestRetentionMs(process.env),
  keyCompactionMs = keyCompactionAfterMs(process.env),
): Promise<'acls granted' | 'no authorizer'> {
  // Outside requests carry the user's input in plaintext, and tasks' dead letters may hold copies of
  // them: both keep it for a bounded time (docs/privacy.md); every other topic keeps everything.
  const bounded = (topic: string) =>
    topic === topicFor('TaskRequested', prefix) || topic === deadLetterTopicFor(`${prefix}tasks`) ? requestRetentionMs : undefined;
  await ensureTopics(adminKafka, [
    ...eventTypes.map((type) => ({
      topic: topicFor(type, prefix),
      partitions,
      retentionMs: bounded(topicFor(type, prefix)),
      compactAfterMs: (keyEventTypes as readonly string[]).includes(type) ? keyCompactionMs : undefined,
      // What outsiders write is held far under what a dead letter of it may take.
      maxMessageBytes: externalEvents.produces.includes(type) ? requestRecordMaxBytes : undefined,
    })),
    ...Object.keys(serviceEvents).map((service) => ({
      topic: deadLetterTopicFor(`${prefix}${service}`),
      partitions: 1,
      retentionMs: bounded(deadLetterTopicFor(`${prefix}${service}`)),
      maxMessageBytes: deadLetterRecordMaxBytes,
    })),
    ...Object.keys(serviceEvents).flatMap((service) => [
      { topic: redriveLogTopic(`${prefix}${service}`), partitions: 1 },
      { topic: redriveRequestTopic(`${prefix}${service}`), partitions: 1 },
    ]),
  ]);
  return applyGrants(adminKafka, aclPlan(prefix), withdrawnGrants(prefix));
}

/**
 * Creates `grants` and deletes `withdrawn`, and waits until the broker enforces them; a broker run
 * without an authorizer (a plain development broker) takes none.
 */
export async function applyGrants(adminKafka: Kafka, grants: Grant[], withdrawn: Grant[] = []): Promise<'acls granted' | 'no authorizer'> {
  const admin = adminKafka.admin();
  await admin.connect();
  try {
    const security = await admin
      .describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      })
      .then(
        () => 'on' as const,
        (error: { type?: string }) => {
          if (error.type === 'SECURITY_DISABLED') return 'off' as const;
          throw error;
        },
      );
    if (security === 'off') return 'no authorizer';
    const bindings = grants.map(bindingOf);
    if (bindings.length > 0) await admin.createAcls({ acl: bindings });
    if (withdrawn.length > 0) await admin.deleteAcls({ filters: withdrawn.map(bindingOf) });
    await untilEnforced(admin, bindings);
    return 'acls granted';
  } finally {
    await admin.disconnect();
  }
}

function bindingOf(grant: Grant) {
  return {
    resourceType: grant.resource === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
    resourceName: grant.name,
    resourcePatternType: grant.prefixed ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
    principal: `User:${grant.principal}`,
    host: '*',
    operation: grant.operation === 'READ' ? AclOperationTypes.READ : AclOperationTypes.WRITE,
    permissionType: AclPermissionTypes.ALLOW,
  };
}

type Binding = {
  resourceType: AclResourceTypes;
  resourceName: string;
  resourcePatternType: ResourcePatternTypes;
  principal: string;
  operation: AclOperationTypes;
};

/**
 * The broker applies new ACLs when it replays the metadata log, a moment after CreateAcls returns: a
 * client that writes at once can still be refused. DescribeAcls answers from the same authorizer, so
 * once it lists every binding, they are enforced.
 */
async function untilEnforced(admin: Admin, bindings: Binding[], timeoutMs = 15_000): Promise<void> {
  const key = (b: Binding) => `${b.resourceType}|${b.resourceName}|${b.resourcePatternType}|${b.principal}|${b.operation}`;
  const wanted = new Set(bindings.map(key));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ALLOW,
    });
    const present = new Set(
      resources.flatMap((r) =>
        r.acls.map((a) =>
          key({
            resourceType: r.resourceType,
            resourceName: r.resourceName,
            resourcePatternType: r.resourcePatternType,
            principal: a.principal,
            operation: a.operation,
          }),
        ),
      ),
    );
    if ([...wanted].every((k) => present.has(k))) return;
    if (Date.now() > deadline) throw new Error(`the broker did not list the new ACLs within ${timeoutMs} ms`);
    await sleep(100);
  }
}
