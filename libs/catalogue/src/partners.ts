import { EventType, eventTypes } from '@app/events';
import { topicFor } from '@app/events';

/**
 * Partners: outside systems, each kept apart from the others. A partner has a Kafka principal and a
 * registry user of its own (`partner-<name>`), writes requests only to its own request topics and
 * reads outcomes only from its own outcome topics (the broker's ACLs say so), and acts only for the
 * users of its namespace: user ids that start with `<name>:`. Which partner sent a request is the
 * topic it came on, a fact only that partner can write; never a field of the request.
 */
export const partnerNamePattern = /^[a-z][a-z0-9-]{1,30}$/;

/**
 * The namespace of the single-partner default `external` (the shared request topic): it acts only
 * for users mapped to it, `external:<id>`, never for an HTTP user of no namespace. The name is
 * therefore no partner's.
 */
export const externalNamespace = 'external';

/** `partner` if it may be a partner's name; otherwise an error that says why. */
export function requirePartnerName(partner: string): string {
  if (!partnerNamePattern.test(partner)) throw new Error(`a partner's name must match ${partnerNamePattern}: ${JSON.stringify(partner)}`);
  if (partner === externalNamespace) throw new Error(`"${externalNamespace}" is the shared request topic's namespace, no partner's name`);
  return partner;
}

/** What a partner writes, and what reaches it: the outside world's events, on its own topics. */
export const partnerEvents = {
  produces: ['TaskRequested', 'TaskCancelRequested'] as EventType[],
  consumes: ['TaskCompleted', 'TaskFailed', 'TaskRejected', 'TaskCancelRejected'] as EventType[],
};

/**
 * The partner among `existing` whose resource names would overlap `partner`'s, if any: a partner's
 * consumer groups are granted by prefix (`partner-acme-`), and names may hold hyphens, so `acme`'s
 * prefix covers every group of `acme-corp`. Two names overlap when one is the other followed by `-`.
 */
export function overlappingPartner(partner: string, existing: Iterable<string>): string | undefined {
  for (const other of existing) {
    if (other !== partner && (other.startsWith(`${partner}-`) || partner.startsWith(`${other}-`))) return other;
  }
  return undefined;
}

export type PartnerPrincipal = `partner-${string}`;

export function partnerPrincipal(partner: string): PartnerPrincipal {
  return `partner-${partner}`;
}

/** `acme`, `TaskRequested` → `partner.acme.task-requested`, behind the optional TOPIC_PREFIX. */
export function partnerTopicFor(partner: string, eventType: EventType, prefix = ''): string {
  return `${prefix}partner.${partner}.${topicFor(eventType)}`;
}

/** Every topic of one partner: those it writes, then those it reads. */
export function partnerTopics(partner: string, prefix = ''): { requests: string[]; outcomes: string[] } {
  return {
    requests: partnerEvents.produces.map((type) => partnerTopicFor(partner, type, prefix)),
    outcomes: partnerEvents.consumes.map((type) => partnerTopicFor(partner, type, prefix)),
  };
}

/** The partner and event type of a partner's topic behind `prefix`; undefined for any other topic. */
export function partnerTopicOf(topic: string, prefix = ''): { partner: string; eventType: EventType } | undefined {
  if (!topic.startsWith(`${prefix}partner.`)) return undefined;
  const [partner, rest, ...more] = topic.slice(prefix.length + 'partner.'.length).split('.');
  if (more.length > 0 || !partnerNamePattern.test(partner)) return undefined;
  const eventType = eventTypes.find((type) => topicFor(type) === rest);
  const known = eventType && [...partnerEvents.produces, ...partnerEvents.consumes].includes(eventType);
  return known ? { partner, eventType } : undefined;
}

/** The partner whose namespace holds `userId` (`acme:alice` → `acme`); undefined for a user of no namespace. */
export function namespaceOf(userId: string): string | undefined {
  const colon = userId.indexOf(':');
  if (colon < 0) return undefined;
  const name = userId.slice(0, colon);
  return partnerNamePattern.test(name) ? name : undefined;
}

/**
 * Whether a request from `partner` (undefined: the shared request topic of the single-partner
 * default, `external`) may act for `userId`: a partner for the users of its namespace only, the
 * shared topic for the users of `external:` only — never for an HTTP user, whose id has no namespace.
 */
export function mayActFor(partner: string | undefined, userId: string): boolean {
  return namespaceOf(userId) === (partner ?? externalNamespace);
}
