import { expect } from 'chai';
import { TEMPLATES, TEMPLATE_NAMES, type TemplateData } from '../../shared/services/emails';

/** Every buyer e-mail in both languages (docs/email.md, "Templates"). */
const SAMPLES: TemplateData = {
  delivery: {
    order_id: 42,
    items: [
      {
        name: 'Game <b>card</b>',
        codes: ['CODE-<1>'],
        license_keys: ['LIC-1'],
        downloads: [
          { name: 'guide.pdf', url: 'https://shop.example/d/1' },
          { name: 'bad', url: 'javascript:alert(1)' },
        ],
      },
    ],
    document: { kind: 'invoice', url: 'https://shop.example/invoices/r' },
  },
  refund: { order_id: 42, amount: '10.50', currency: 'SAR', reason: 'Duplicate "order"' },
  subscription_renewed: {
    product_name: 'Pro plan',
    order_id: 43,
    amount: '29.00',
    currency: 'SAR',
    next_renewal_at: '2026-12-27T10:00:00.000Z',
  },
  renewal_failed: {
    product_name: 'Pro plan',
    amount: '29.00',
    currency: 'SAR',
    pay_url: 'https://shop.example/pay/abc',
    ends_at: '2027-01-03T00:00:00.000Z',
  },
  price_change: {
    product_name: 'Pro plan',
    old_amount: '29.00',
    new_amount: '35.00',
    currency: 'SAR',
    effective_at: '2027-01-27T00:00:00.000Z',
  },
  sign_in: { url: 'https://shop.example/account/sign-in/xyz', expires_minutes: 15 },
  order_notice: {
    order_number: 7,
    amount: '50.00',
    currency: 'SAR',
    buyer: 'Huda <b>Test</b>',
    items: ['Game <b>card</b> × 1'],
    url: 'https://shop.example/merchant/orders/42',
  },
  checkout_reminder: {
    items: ['Game <b>card</b> × 2'],
    total: '100.00',
    currency: 'SAR',
    resume_url: 'https://shop.example/r/1-abc',
    opt_out_url: 'https://shop.example/r/1-abc/opt-out',
    coupon_code: 'BACK<10>',
  },
  key_claim: {
    order_id: 42,
    code: 'KEY-<1>',
    approved: true,
    replacement_code: 'KEY-2',
    note: 'Sorry "again"',
  },
};

const brand = { name: 'Acme <script>alert(1)</script> & Co', color: '#7a2be2' };

describe('e-mail templates', () => {
  for (const name of TEMPLATE_NAMES) {
    for (const locale of ['ar', 'en'] as const) {
      it(`${name} in ${locale}: HTML for mail clients with a text part, every value escaped`, () => {
        const data = SAMPLES[name];
        const template = TEMPLATES[name] as unknown as {
          schema: { validate(v: unknown): { error?: Error } };
          render(
            l: 'ar' | 'en',
            b: typeof brand,
            d: unknown,
          ): { subject: string; html: string; text: string };
        };
        if (name !== 'delivery') expect(template.schema.validate(data).error).to.equal(undefined);
        const { subject, html, text } = template.render(locale, brand, data);
        expect(subject).to.have.length.greaterThan(5);
        expect(html).to.match(
          new RegExp(`^<!DOCTYPE html><html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`),
        );
        expect(html).not.to.match(/<script|<link|<style|@import|@font-face|href="javascript/i);
        expect(html).to.contain('Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
        expect(html).to.contain('background:#7a2be2');
        expect(text).to.contain('Acme <script>alert(1)</script> & Co');
        expect(text).not.to.match(/<(p|td|tr|table|a|h1|span|img)[\s>]/);
        if (locale === 'ar') expect(text).to.match(/[\u0600-\u06FF]/);
        else expect(text).not.to.match(/[\u0600-\u06FF]/);
      });
    }
  }

  it('the delivery carries every key, download and the document link; an unsafe link is not a link', () => {
    const { html, text } = TEMPLATES.delivery.render('ar', brand, SAMPLES.delivery);
    expect(html).to.contain('CODE-&lt;1&gt;').and.contain('Game &lt;b&gt;card&lt;/b&gt;');
    expect(html).to.contain('href="https://shop.example/d/1"').and.not.to.contain('href="javascript');
    for (const part of ['CODE-<1>', 'LIC-1', 'https://shop.example/d/1', 'https://shop.example/invoices/r']) {
      expect(text).to.contain(part);
    }
    expect(text).to.contain('الفاتورة مرفقة');
  });

  it('refuses data that breaks a template’s shape', () => {
    expect(
      TEMPLATES.renewal_failed.schema.validate({ ...SAMPLES.renewal_failed, pay_url: 'javascript:x' }).error,
    ).to.be.an('error');
    expect(TEMPLATES.refund.schema.validate({ ...SAMPLES.refund, amount: 10.5 }).error).to.be.an('error');
    expect(TEMPLATES.delivery.schema.validate({ order_id: 1, items: [] }).error).to.be.an('error');
  });
});
