import { mayActFor, namespaceOf, overlappingPartner, partnerTopicFor, partnerTopicOf, requirePartnerName } from './partners';

describe('partners', () => {
  it("names a partner's topics behind the prefix and reads them back", () => {
    expect(partnerTopicFor('acme', 'TaskRequested', 't1.')).toBe('t1.partner.acme.task-requested');
    expect(partnerTopicOf('t1.partner.acme.task-requested', 't1.')).toEqual({ partner: 'acme', eventType: 'TaskRequested' });
    expect(partnerTopicOf('t1.partner.acme.task-completed', 't1.')).toEqual({ partner: 'acme', eventType: 'TaskCompleted' });
  });

  it('reads no partner from any other topic', () => {
    expect(partnerTopicOf('t1.task-requested', 't1.')).toBeUndefined();
    expect(partnerTopicOf('partner.acme.task-requested', 't1.')).toBeUndefined(); // another world's
    expect(partnerTopicOf('t1.partner.acme.quota-debited', 't1.')).toBeUndefined(); // not a partner's event
    expect(partnerTopicOf('t1.partner.acme.x.task-requested', 't1.')).toBeUndefined();
    expect(partnerTopicOf('t1.partner.ACME.task-requested', 't1.')).toBeUndefined();
  });

  it("takes a user's namespace from the text before the first colon, when it names a partner", () => {
    expect(namespaceOf('acme:alice')).toBe('acme');
    expect(namespaceOf('acme:team:alice')).toBe('acme');
    expect(namespaceOf('alice')).toBeUndefined();
    expect(namespaceOf('Acme:alice')).toBeUndefined();
    expect(namespaceOf(':alice')).toBeUndefined();
  });

  it('lets a partner act only for its own users, and the shared topic only for users of external:', () => {
    expect(mayActFor('acme', 'acme:alice')).toBe(true);
    expect(mayActFor('acme', 'globex:bob')).toBe(false);
    expect(mayActFor('acme', 'alice')).toBe(false);
    expect(mayActFor('acme', 'acmex:alice')).toBe(false);
    // The shared topic (the single-partner default) acts for its own namespace only, never for an HTTP user
    expect(mayActFor(undefined, 'external:alice')).toBe(true);
    expect(mayActFor(undefined, 'alice')).toBe(false);
    expect(mayActFor(undefined, 'acme:alice')).toBe(false);
  });

  it("keeps external, the shared topic's namespace, from every partner", () => {
    expect(() => requirePartnerName('external')).toThrow(/no partner's name/);
    expect(() => requirePartnerName('Acme')).toThrow(/must match/);
    expect(requirePartnerName('external-corp')).toBe('external-corp');
  });

  it("finds a partner whose name is another's plus a hyphenated tail, either way, and no other", () => {
    expect(overlappingPartner('acme-corp', ['globex', 'acme'])).toBe('acme');
    expect(overlappingPartner('acme', ['acme-corp'])).toBe('acme-corp');
    expect(overlappingPartner('acme', ['acme'])).toBeUndefined(); // the same partner, added again
    expect(overlappingPartner('acme', ['acmecorp', 'corp-acme', 'acm'])).toBeUndefined();
  });
});
