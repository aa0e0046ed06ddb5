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
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** True for loopback, private, link-local, multicast, reserved and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPrivateAddress(mapped[1]!);
    return blocked.check(address, 'ipv6');
  }
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
