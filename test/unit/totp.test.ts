import { expect } from 'chai';
import {
  base32Decode,
  base32Encode,
  hotp,
  matchingStep,
  otpauthUri,
  totpAt,
} from '../../shared/services/staff/totp';

/** The dashboard's authenticator codes against the published test vectors of RFC 4226 and RFC 6238. */
describe('TOTP (RFC 6238, SHA-1)', () => {
  // The RFCs' SHA-1 seed: the ASCII string "12345678901234567890".
  const seed = Buffer.from('12345678901234567890', 'ascii');

  it('makes RFC 6238 Appendix B’s SHA-1 codes (8 digits) at each published time', () => {
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [time, code] of vectors) expect(totpAt(seed, time, 8), `T=${time}`).to.equal(code);
  });

  it('makes RFC 4226 Appendix D’s HOTP values (6 digits) for counters 0 to 9', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotp(seed, counter))).to.deep.equal(expected);
  });

  it('accepts the code of the step before, now and after, and nothing further away', () => {
    const now = 1111111111;
    const step = Math.floor(now / 30);
    for (const offset of [-1, 0, 1]) {
      expect(matchingStep(seed, hotp(seed, step + offset), now)).to.equal(step + offset);
    }
    expect(matchingStep(seed, hotp(seed, step - 2), now)).to.equal(null);
    expect(matchingStep(seed, hotp(seed, step + 2), now)).to.equal(null);
    expect(matchingStep(seed, '12345', now)).to.equal(null);
    expect(matchingStep(seed, 'abcdef', now)).to.equal(null);
  });

  it('writes and reads base32 (RFC 4648 vectors) and builds the otpauth:// URI apps read', () => {
    expect(base32Encode(Buffer.from('foobar'))).to.equal('MZXW6YTBOI');
    expect(base32Encode(Buffer.from('f'))).to.equal('MY');
    expect(base32Decode('mzxw 6ytb oi')?.toString()).to.equal('foobar');
    expect(base32Decode('MZXW6YTBOI======')?.toString()).to.equal('foobar');
    expect(base32Decode('MZ1W')).to.equal(null);
    expect(base32Encode(seed)).to.equal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    const uri = new URL(otpauthUri('GEZDGNBVGY3TQOJQ', 'Matjar', '+966500000001'));
    expect(uri.protocol).to.equal('otpauth:');
    expect(uri.host).to.equal('totp');
    expect(decodeURIComponent(uri.pathname)).to.equal('/Matjar:+966500000001');
    expect(Object.fromEntries(uri.searchParams)).to.deep.equal({
      secret: 'GEZDGNBVGY3TQOJQ',
      issuer: 'Matjar',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
