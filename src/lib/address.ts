/**
 * Which network addresses outbound requests (webhooks, extraction URLs) may reach. Only public
 * unicast addresses by default; the operator opens more with ROWSMITH_WEBHOOK_ALLOWED_HOSTS.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

type Range = [address: string, prefix: number];

const LOOPBACK: Range[] = [['127.0.0.0', 8], ['::1', 128]];
const PRIVATE: Range[] = [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['fc00::', 7]];
/** Link-local (and with it cloud metadata), multicast, documentation, reserved and translation ranges. */
const RESERVED: Range[] = [
  ['0.0.0.0', 8], ['169.254.0.0', 16], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ['::', 128], ['64:ff9b::', 96], ['100::', 64], ['2001::', 32], ['2001:db8::', 32], ['2002::', 16], ['fe80::', 10],
  ['fec0::', 10], ['ff00::', 8],
];

function family(address: string): 'ipv4' | 'ipv6' {
  return net.isIP(address) === 4 ? 'ipv4' : 'ipv6';
}

function blockList(ranges: Range[]): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, family(address));
  return list;
}

const CATEGORIES: Array<[name: string, list: net.BlockList]> = [
  ['loopback', blockList(LOOPBACK)],
  ['private', blockList(PRIVATE)],
  ['reserved', blockList(RESERVED)],
];

/** Resolves a host name to all its addresses; tests inject their own. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class OutboundRefused extends Error {}

export class AddressPolicy {
  private constructor(
    private readonly keywords: Set<string>,
    private readonly ranges: net.BlockList,
    private readonly hosts: string[],
  ) {}

  /** `loopback`, `private`, CIDRs, single addresses and host names (`*.example.com` for subdomains), comma-separated. */
  static parse(text: string): AddressPolicy {
    const keywords = new Set<string>();
    const ranges = new net.BlockList();
    const hosts: string[] = [];
    for (const entry of text.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
      if (entry === 'loopback' || entry === 'private') {
        keywords.add(entry);
        continue;
      }
      const [address, prefixText, extra] = entry.split('/');
      if (net.isIP(address!)) {
        const bits = net.isIP(address!) === 4 ? 32 : 128;
        const prefix = prefixText === undefined ? bits : Number(prefixText);
        if (extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > bits) throw new Error(`"${entry}" is not a valid CIDR`);
        ranges.addSubnet(address!, prefix, family(address!));
        continue;
      }
      if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
        throw new Error(`"${entry}" is not loopback, private, a CIDR, an address or a host name`);
      }
      hosts.push(entry);
    }
    return new AddressPolicy(keywords, ranges, hosts);
  }

  private hostAllowed(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.hosts.some((h) => (h.startsWith('*.') ? name.endsWith(h.slice(1)) : name === h));
  }

  /** Why `address` (which `host` resolved to) must not be used, or null when it may. */
  refusal(host: string, address: string): string | null {
    if (this.hostAllowed(host)) return null;
    const plain = address.replace(/%.*$/, '');
    if (!net.isIP(plain)) return `"${address}" is not an IP address`;
    if (this.ranges.check(plain, family(plain))) return null;
    for (const [name, list] of CATEGORIES) {
      if (!list.check(plain, family(plain))) continue;
      if (this.keywords.has(name)) return null;
      const of = host === plain ? '' : ` (from ${host})`;
      return `address ${plain}${of} is ${name}; only the operator can allow it, with ROWSMITH_WEBHOOK_ALLOWED_HOSTS`;
    }
    return null;
  }
}

/** A receiver URL: https, with a host, without user info. Returns the problem, or null. */
export function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:') return 'must start with https://';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (!url.hostname) return 'must name a host';
  return null;
}

/**
 * Resolves the URL's host and checks every address it gives; returns the one to connect to, so
 * the address checked is the address used (no DNS rebinding between check and connect).
 */
export async function resolveChecked(url: URL, policy: AddressPolicy, resolver: Resolver): Promise<string> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolver(host);
    } catch (error) {
      throw new OutboundRefused(`host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
    }
  }
  if (addresses.length === 0) throw new OutboundRefused(`host ${host} does not resolve`);
  for (const address of addresses) {
    const problem = policy.refusal(host, address);
    if (problem) throw new OutboundRefused(`refused: ${problem}`);
  }
  return addresses[0]!;
}
