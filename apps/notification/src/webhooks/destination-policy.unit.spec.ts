import { mayConnect, parseAllowedTargets } from './destination-policy';

describe('where a webhook may connect', () => {
  const nothingAllowed = parseAllowedTargets(undefined);

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.254',
    '169.254.169.254',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(mayConnect(address, 443, nothingAllowed)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])(
    'allows the public address %s',
    (address) => {
      expect(mayConnect(address, 443, nothingAllowed)).toBe(true);
    },
  );

  it('refuses what is not an address at all', () => {
    expect(mayConnect('localhost', 443, nothingAllowed)).toBe(false);
  });

  it('allows an inside address only as the operator lists it: a whole network, or one address and port', () => {
    const allowed = parseAllowedTargets('10.1.0.0/16, 127.0.0.1:8080, [::1]:9090');
    expect(mayConnect('10.1.2.3', 443, allowed)).toBe(true);
    expect(mayConnect('10.2.0.1', 443, allowed)).toBe(false);
    expect(mayConnect('127.0.0.1', 8080, allowed)).toBe(true);
    expect(mayConnect('127.0.0.1', 8081, allowed)).toBe(false);
    expect(mayConnect('::1', 9090, allowed)).toBe(true);
    expect(mayConnect('::1', 9091, allowed)).toBe(false);
  });

  it('refuses a malformed allow list at boot, naming the entry', () => {
    expect(() => parseAllowedTargets('localhost:8080')).toThrow(/"localhost:8080"/);
    expect(() => parseAllowedTargets('10.0.0.0/8,nonsense')).toThrow(/"nonsense"/);
  });
});
