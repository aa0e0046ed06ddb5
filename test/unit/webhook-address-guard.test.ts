import net from 'node:net';
import { expect } from 'chai';
import {
  isPrivateAddress,
  SsrfRefusedError,
  vetHost,
  type Resolver,
} from '../../shared/services/webhooks/ssrf';

/**
 * The outbound-webhook address guard against IPv6 forms that embed or tunnel IPv4: each is answered by an
 * injected resolver for an ordinary-looking host name, and refused before anything connects (vetHost only
 * resolves and checks; the delivery connects to what it answers).
 */
describe('webhook address guard: IPv6 forms that reach IPv4', () => {
  const lookups: string[] = [];
  const resolverTo =
    (address: string): Resolver =>
    async (host) => {
      lookups.push(host);
      return [{ address, family: net.isIP(address) === 6 ? 6 : 4 }];
    };

  const REFUSED = [
    // IPv4-compatible (::/96, deprecated), dotted and hex
    '::127.0.0.1',
    '::10.0.0.1',
    '::7f00:1',
    '::8.8.8.8',
    // IPv4-mapped in hex spelling (the dotted one was already judged by its IPv4 address)
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:127.0.0.1',
    // IPv4-translated
    '::ffff:0:127.0.0.1',
    // 6to4 (2002::/16): 2002:7f00:0001:: tunnels to 127.0.0.1; every 6to4 address is refused
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:808:808::1',
    // Teredo (2001::/32)
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001::1',
    // local-use NAT64, discard-only, a zone id
    '64:ff9b:1::a00:1',
    '100::1',
    'fe80::1%eth0',
  ];

  it('refuses each form, through the injected resolver, before any connection', async () => {
    for (const address of REFUSED) {
      expect(isPrivateAddress(address), address).to.equal(true);
      let error: unknown = null;
      await vetHost('hooks.merchant.test', resolverTo(address), false).catch((err: unknown) => (error = err));
      expect(error, address).to.be.instanceOf(SsrfRefusedError);
    }
    expect(lookups.every((h) => h === 'hooks.merchant.test')).to.equal(true);
    // An IPv6 literal in the URL is judged the same way without a lookup.
    let literal: unknown = null;
    await vetHost('[2002:7f00:1::]', resolverTo('93.184.216.34'), false).catch(
      (err: unknown) => (literal = err),
    );
    expect(literal).to.be.instanceOf(SsrfRefusedError);
  });

  it('still lets public IPv6 and IPv4-mapped public addresses through', async () => {
    for (const address of [
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '2001:4860::8888',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(false);
      expect(await vetHost('hooks.merchant.test', resolverTo(address), false)).to.deep.equal({
        address,
        family: 6,
      });
    }
  });
});
