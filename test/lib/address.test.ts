import { describe, expect, test } from 'bun:test';
import { AddressPolicy, OutboundRefused, resolveChecked, urlProblem } from '../../src/lib/address';

const none = AddressPolicy.parse('');

describe('address rules', () => {
  test('public unicast addresses pass; every blocked range is refused, IPv4 and IPv6', () => {
    for (const ok of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1', '100.128.0.1']) expect(none.refusal(ok, ok)).toBeNull();
    const blocked = [
      '127.0.0.1', '127.255.0.9', '::1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', 'fd12::1',
      '169.254.169.254', 'fe80::1', '0.0.0.0', '224.0.0.1', 'ff02::1', '192.0.2.10', '198.51.100.1', '203.0.113.5', '2001:db8::1',
      '198.18.0.1', '240.0.0.1', '255.255.255.255', '::', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '64:ff9b::a00:1',
    ];
    for (const address of blocked) expect({ address, refused: none.refusal(address, address) !== null }).toEqual({ address, refused: true });
  });

  test('the operator opens loopback, private, CIDRs, addresses and host names', () => {
    expect(AddressPolicy.parse('loopback').refusal('127.0.0.1', '127.0.0.1')).toBeNull();
    expect(AddressPolicy.parse('loopback').refusal('::ffff:127.0.0.1', '::ffff:127.0.0.1')).toBeNull();
    expect(AddressPolicy.parse('loopback').refusal('10.0.0.1', '10.0.0.1')).toContain('private');
    expect(AddressPolicy.parse('private').refusal('x', '192.168.3.4')).toBeNull();
    expect(AddressPolicy.parse('private').refusal('x', '169.254.169.254')).toContain('reserved');
    const cidr = AddressPolicy.parse(' 10.20.0.0/16 , fd00:1::/32, 169.254.1.1 ');
    expect(cidr.refusal('x', '10.20.9.9')).toBeNull();
    expect(cidr.refusal('x', '10.21.0.1')).not.toBeNull();
    expect(cidr.refusal('x', 'fd00:1::5')).toBeNull();
    expect(cidr.refusal('x', '169.254.1.1')).toBeNull();
    expect(cidr.refusal('x', '169.254.1.2')).not.toBeNull();
    const hosts = AddressPolicy.parse('hooks.internal, *.corp.example');
    expect(hosts.refusal('hooks.internal', '10.0.0.1')).toBeNull();
    expect(hosts.refusal('HOOKS.internal.', '10.0.0.1')).toBeNull();
    expect(hosts.refusal('a.b.corp.example', '10.0.0.1')).toBeNull();
    expect(hosts.refusal('corp.example', '10.0.0.1')).not.toBeNull();
    expect(hosts.refusal('evilhooks.internal', '10.0.0.1')).not.toBeNull();
  });

  test('a bad allowlist entry is an error naming it', () => {
    expect(() => AddressPolicy.parse('10.0.0.0/33')).toThrow('10.0.0.0/33');
    expect(() => AddressPolicy.parse('loopback, not a host')).toThrow('not a host');
  });

  test('receiver URLs: https with a host, no user info', () => {
    expect(urlProblem('https://example.com/x?y=1')).toBeNull();
    expect(urlProblem('http://example.com')).toContain('https');
    expect(urlProblem('https://u:p@example.com')).toContain('user');
    expect(urlProblem('not a url')).toContain('valid');
  });

  test('every resolved address is checked, and the checked one is returned', async () => {
    const mixed = async () => ['93.184.216.34', '10.0.0.1'];
    await expect(resolveChecked(new URL('https://mixed.test/'), none, mixed)).rejects.toBeInstanceOf(OutboundRefused);
    expect(await resolveChecked(new URL('https://ok.test/'), none, async () => ['93.184.216.34'])).toBe('93.184.216.34');
    expect(await resolveChecked(new URL('https://[2606:4700::1111]/'), none, async () => [])).toBe('2606:4700::1111');
    await expect(resolveChecked(new URL('https://none.test/'), none, async () => [])).rejects.toThrow('does not resolve');
  });
});
