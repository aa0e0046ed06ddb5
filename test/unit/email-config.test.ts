import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config';
import { createMailer } from '../../shared/email';

/** EMAIL_DRIVER, SMTP_URL, EMAIL_FROM (docs/operations.md, docs/email.md). */
describe('e-mail configuration', () => {
  function refusal(env: NodeJS.ProcessEnv): ConfigError {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      return err as ConfigError;
    }
    throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
  }

  it('uses the outbox without SMTP_URL and SMTP with it', () => {
    expect(loadConfig({}).email).to.include({
      driver: 'outbox',
      from: 'no-reply@localhost',
      retryDelayMs: 60_000,
    });
    const smtp = loadConfig({
      SMTP_URL: 'smtp://user:pass@mail.example:587',
      EMAIL_FROM: 'orders@shop.example',
    });
    expect(smtp.email).to.include({
      driver: 'smtp',
      smtpUrl: 'smtp://user:pass@mail.example:587',
      from: 'orders@shop.example',
    });
    expect(loadConfig({ SMTP_URL: 'smtps://mail.example', EMAIL_DRIVER: 'outbox' }).email.driver).to.equal(
      'outbox',
    );
    expect(createMailer(smtp).driver).to.equal('smtp');
    expect(createMailer(loadConfig({})).driver).to.equal('outbox');
  });

  it('stops a start on a bad value, naming the variable', () => {
    expect(refusal({ EMAIL_DRIVER: 'sendgrid' }).variable).to.equal('EMAIL_DRIVER');
    expect(refusal({ EMAIL_DRIVER: 'smtp' }).message).to.match(
      /^Invalid configuration: SMTP_URL .*EMAIL_DRIVER is smtp/,
    );
    expect(refusal({ SMTP_URL: 'http://mail.example' }).variable).to.equal('SMTP_URL');
    expect(refusal({ SMTP_URL: 'not a url' }).variable).to.equal('SMTP_URL');
    expect(refusal({ EMAIL_FROM: 'Shop <orders@shop.example>' }).variable).to.equal('EMAIL_FROM');
    expect(refusal({ EMAIL_FROM: 'nobody' }).message).to.contain('EMAIL_FROM');
    expect(refusal({ EMAIL_RETRY_DELAY_MS: '0' }).variable).to.equal('EMAIL_RETRY_DELAY_MS');
  });
});
