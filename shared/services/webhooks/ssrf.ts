import dns from 'node:dns';
import net from 'node:net';

/**
 * Outbound webhooks go to addresses merchants choose, so a URL naming (or resolving to) an internal
 * address would let a merchant reach the platform's own network (SSRF). The host is resolved through an
 * injectable resolver, every address is checked, and the connection is then made to the checked address
 * only (no second lookup an attacker's DNS could answer differently).
 */

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['64:ff9b::', 96], // NAT64 (may reach IPv4 internals)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included); null if malformed. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (h: string): string[] => (h === '' ? [] : h.split(':'));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  const values = groups.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return values.some(Number.isNaN) ? null : values;
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * IPv6 forms that carry or tunnel an IPv4 address, and so could reach an internal IPv4 host whatever the
 * IPv6 list says: IPv4-mapped (`::ffff:a.b.c.d`, in any spelling) is judged by its IPv4 address; the
 * deprecated IPv4-compatible (`::a.b.c.d`, ::/96), IPv4-translated (`::ffff:0:a.b.c.d`), 6to4 (2002::/16)
 * and Teredo (2001::/32) are refused whole: no webhook endpoint needs them.
 */
function isPrivateIpv6(address: string): boolean {
  if (address.includes('%')) return true; // a zone id: link-local by definition
  const g = ipv6Groups(address);
  if (!g) return true;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return isPrivateAddress(v4Of(g[6]!, g[7]!)); // IPv4-mapped
  if (zeros(0, 6)) return true; // IPv4-compatible ::/96 (with :: and ::1)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return true; // IPv4-translated ::ffff:0:0/96
  if (g[0] === 0x2002) return true; // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo
  return blocked.check(address, 'ipv6');
}

/**
 * True for loopback, private, link-local, multicast, reserved and unspecified addresses, and for IPv6
 * forms that embed or tunnel IPv4 (isPrivateIpv6).
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  if (family === 6) return isPrivateIpv6(address);
  return blocked.check(address, 'ipv4');
}

export class SsrfRefusedError extends Error {
  constructor(readonly host: string) {
    super(`refused to deliver to ${host}: it resolves to a private, loopback or link-local address`);
    this.name = 'SsrfRefusedError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * The address to connect to for `hostname`: resolved (an IP literal stands for itself), every answer
 * checked unless `allowPrivate` (tests only). Throws SsrfRefusedError before any connection is attempted.
 */
export async function vetHost(
  hostname: string,
  resolver: Resolver,
  allowPrivate: boolean,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = net.isIP(bare);
  const answers = literal ? [{ address: bare, family: literal as 4 | 6 }] : await resolver(bare);
  if (answers.length === 0) throw new Error(`no address for ${hostname}`);
  if (!allowPrivate && answers.some((a) => isPrivateAddress(a.address))) throw new SsrfRefusedError(hostname);
  return answers[0]!;
}
