import { expect } from 'chai';
import { paragraphDirection, visualRuns } from '../../../shared/services/invoices/bidi';

describe('invoice PDF: right-to-left order of a line', () => {
  it('an Arabic line is one right-to-left run', () => {
    expect(visualRuns('فاتورة ضريبية مبسطة')).to.deep.equal([
      { text: 'فاتورة ضريبية مبسطة', direction: 'rtl' },
    ]);
  });

  it('numbers inside an Arabic line keep their order, and the runs are shown last to first', () => {
    expect(paragraphDirection('بطاقة شحن 100 ريال')).to.equal('rtl');
    expect(visualRuns('بطاقة شحن 100 ريال')).to.deep.equal([
      { text: ' ريال', direction: 'rtl' },
      { text: '100', direction: 'ltr' },
      { text: 'بطاقة شحن ', direction: 'rtl' },
    ]);
    expect(visualRuns('ضريبة القيمة المضافة 15.00%')).to.deep.equal([
      { text: '15.00%', direction: 'ltr' },
      { text: 'ضريبة القيمة المضافة ', direction: 'rtl' },
    ]);
  });

  it('an English line with an Arabic name keeps left-to-right order', () => {
    expect(visualRuns('Order for شركة أكمي today')).to.deep.equal([
      { text: 'Order for ', direction: 'ltr' },
      { text: 'شركة أكمي', direction: 'rtl' },
      { text: ' today', direction: 'ltr' },
    ]);
    expect(visualRuns('115.00 SAR')).to.deep.equal([{ text: '115.00 SAR', direction: 'ltr' }]);
  });
});
