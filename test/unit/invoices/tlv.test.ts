import { expect } from 'chai';
import { currencyExponent, formatAmount, inclusiveVat } from '../../../shared/services/invoices/amounts';
import {
  clipToTlv,
  decodeTlv,
  encodeTlv,
  TlvValueTooLong,
  zatcaQr,
} from '../../../shared/services/invoices/tlv';
import { decodeWithDataView, decodeWithPython } from '../../helpers/zatca-qr';

describe('ZATCA QR: the TLV record', () => {
  const fields = {
    sellerName: 'شركة أكمي الرقمية',
    vatNumber: '310122393500003',
    timestamp: '2026-11-24T10:15:00Z',
    total: '115.00',
    vat: '15.00',
  };

  it('is tag, one length byte, UTF-8 value, for tags 1 to 5 in order (byte by byte)', () => {
    const bytes = Buffer.from(zatcaQr(fields), 'base64');
    const seller = Buffer.from(fields.sellerName, 'utf8');
    // Arabic letters are two bytes each in UTF-8: the length counts bytes, not characters.
    expect(seller.length).to.not.equal(fields.sellerName.length);
    let at = 0;
    const expectField = (tag: number, value: Buffer): void => {
      expect(bytes[at], `tag at byte ${at}`).to.equal(tag);
      expect(bytes[at + 1], `length of tag ${tag}`).to.equal(value.length);
      expect(bytes.subarray(at + 2, at + 2 + value.length).equals(value), `value of tag ${tag}`).to.equal(
        true,
      );
      at += 2 + value.length;
    };
    expectField(1, seller);
    expectField(2, Buffer.from('310122393500003'));
    expectField(3, Buffer.from('2026-11-24T10:15:00Z'));
    expectField(4, Buffer.from('115.00'));
    expectField(5, Buffer.from('15.00'));
    expect(at).to.equal(bytes.length);
  });

  it('matches the published example of a ZATCA QR', () => {
    // ZATCA's guideline example: seller "Bobs Records", VAT 310122393500003, 2022-04-25T15:30:00Z, 1000.00, 150.00.
    const qr = zatcaQr({
      sellerName: 'Bobs Records',
      vatNumber: '310122393500003',
      timestamp: '2022-04-25T15:30:00Z',
      total: '1000.00',
      vat: '150.00',
    });
    expect(qr).to.equal(
      'AQxCb2JzIFJlY29yZHMCDzMxMDEyMjM5MzUwMDAwMwMUMjAyMi0wNC0yNVQxNTozMDowMFoEBzEwMDAuMDAFBjE1MC4wMA==',
    );
  });

  it('two independent decoders (DataView, Python) read the same five fields', () => {
    const qr = zatcaQr(fields);
    const expected = [
      { tag: 1, value: fields.sellerName, length: Buffer.byteLength(fields.sellerName) },
      { tag: 2, value: fields.vatNumber, length: 15 },
      { tag: 3, value: fields.timestamp, length: 20 },
      { tag: 4, value: '115.00', length: 6 },
      { tag: 5, value: '15.00', length: 5 },
    ];
    expect(decodeWithDataView(qr)).to.deep.equal(expected);
    expect(decodeWithPython(qr)).to.deep.equal(expected);
    expect([...decodeTlv(Buffer.from(qr, 'base64')).entries()]).to.deep.equal(
      expected.map((f) => [f.tag, f.value]),
    );
  });

  it('refuses a value over 255 bytes, and clips a fallback name at a character boundary', () => {
    expect(() => encodeTlv([[1, 'ب'.repeat(128)]])).to.throw(TlvValueTooLong, /256 bytes/);
    const clipped = clipToTlv('ب'.repeat(200));
    expect(Buffer.byteLength(clipped)).to.equal(254);
    expect(clipped).to.equal('ب'.repeat(127));
  });

  it('refuses a record that ends inside a field', () => {
    expect(() => decodeTlv(Buffer.from([1, 5, 65, 66]))).to.throw(RangeError);
  });
});

describe('invoice amounts', () => {
  it('formats with the currency’s decimals, exactly', () => {
    expect(formatAmount(11_500, 'SAR')).to.equal('115.00');
    expect(formatAmount(5, 'SAR')).to.equal('0.05');
    expect(formatAmount(-500, 'SAR')).to.equal('-5.00');
    expect(formatAmount(1_001, 'KWD')).to.equal('1.001');
    expect(formatAmount(7, 'BHD')).to.equal('0.007');
    expect(formatAmount(1_500, 'JPY')).to.equal('1500');
    expect(formatAmount(9_007_199_254_740_991, 'SAR')).to.equal('90071992547409.91');
    expect(currencyExponent('kwd')).to.equal(3);
  });

  it('splits VAT out of an inclusive total as total - round(total / 1.15)', () => {
    expect(inclusiveVat(11_500, 1500)).to.equal(1_500);
    expect(inclusiveVat(4_000, 1500)).to.equal(522); // 40.00 / 1.15 = 34.7826 -> 34.78; VAT 5.22
    expect(inclusiveVat(1_001, 1500)).to.equal(131); // 1.001 KWD: 0.870 net, 0.131 VAT
    expect(inclusiveVat(1, 1500)).to.equal(0);
    expect(inclusiveVat(0, 1500)).to.equal(0);
    expect(inclusiveVat(11_500, 0)).to.equal(0);
    for (let total = 0; total <= 20_000; total += 1) {
      expect(inclusiveVat(total, 1500), `total ${total}`).to.equal(total - Math.round(total / 1.15));
    }
  });
});
