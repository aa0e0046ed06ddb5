import { expect } from 'chai';
import { newPage } from '../../helpers/browser';
import { Product, ProductPlan } from '../../../db/models';
import { confirmManualPayment } from '../../../shared/services/payments';
import { createCustomer, createPaymentMethod, createProduct, merchantToken } from '../../helpers/builders';
import {
  coupon,
  events,
  merchantPage,
  openWidget,
  orderIdFor,
  payInPopup,
  recordEvents,
  shop,
  shownOrderId,
  startWorld,
  waitFor,
  WidgetWorld,
} from './support';

/**
 * The whole purchase in headless Chromium, on a merchant page served from another origin than the API:
 * a guest through the sandbox provider's window, a customer signing in by OTP (code read from the dev
 * outbox) with a coupon that restricts the methods, a free order, and the saved token restored.
 */
describe('checkout widget: purchases in a real browser', function () {
  this.timeout(120_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  it('lets a guest on a 320 px screen buy a code key through the sandbox provider and shows the order id', async () => {
    const { store, product } = await shop(world.deps);
    const url = world.page('/guest', merchantPage(world, product, store));
    const page = await newPage({ viewport: { width: 320, height: 640 } });
    try {
      await page.goto(url);
      await recordEvents(page);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      // Readable at 320 px: the dialog fits and nothing scrolls sideways.
      const box = await dialog.boundingBox();
      expect(box!.width).to.be.at.most(320);
      const overflow = await dialog.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).to.be.at.most(0);

      // Guest details are the default: the contract's autocomplete tokens are all a buyer script needs.
      await dialog.locator('[autocomplete=given-name]').fill('Nora');
      await dialog.locator('[autocomplete=family-name]').fill('Saleh');
      await dialog.locator('[autocomplete=email]').fill('nora@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('0500009111');
      expect(await dialog.locator('[autocomplete=tel-national]').inputValue()).to.equal('050 000 9111');
      const methods = await dialog
        .locator('input[type=radio][name^=mj-method]')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      expect(methods).to.deep.equal(['card', 'mada', 'bank']);
      await dialog.locator('input[type=radio][value=card]').check();

      const popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      const popup = await popupOpened;
      await payInPopup(popup);

      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, product.id)).to.deep.equal([shown]);
      const checkout = await world.deps.knex('checkouts').where({ product_id: product.id }).first();
      expect(checkout).to.include({ customer_first_name: 'Nora', customer_phone: '500009111' });
      await waitFor('the matjar:paid event', async () =>
        (await events(page)).some(([name, d]) => name === 'matjar:paid' && d.order_id === shown),
      );
      expect((await events(page)).map(([name]) => name)).to.deep.equal(['matjar:open', 'matjar:paid']);
    } finally {
      await page.context().close();
    }
  });

  it('sells a product the merchant made through the Merchant API, key stock included', async () => {
    const { store } = await shop(world.deps);
    const token = await merchantToken(store);
    const created = await fetch(`${world.api}/shawarma/products`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'API Game Key',
        slug: `api-game-key-${store.id}`,
        type: 'code',
        price: '25.00',
        codes: [`API-KEY-${store.id}-1`, `API-KEY-${store.id}-2`],
      }),
    });
    expect(created.status).to.equal(201);
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    const product = { id } as Product;
    const page = await newPage();
    try {
      await page.goto(world.page('/api-made', merchantPage(world, product, store)));
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'API Game Key' }).waitFor();
      await dialog.locator('[autocomplete=given-name]').fill('Huda');
      await dialog.locator('[autocomplete=family-name]').fill('Omar');
      await dialog.locator('[autocomplete=email]').fill('huda@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('0500009333');
      await dialog.locator('input[type=radio][value=card]').check();
      const popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await payInPopup(await popupOpened);
      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, id)).to.deep.equal([shown]);
      const sold = await waitFor('the key sold to the order', async () => {
        const row = await world.deps.knex('product_codes').where({ product_id: id, status: 'sold' }).first();
        return row ?? undefined;
      });
      expect(sold.code).to.match(/^API-KEY-/);
    } finally {
      await page.context().close();
    }
  });

  it('signs a customer in with the OTP from the dev outbox, applies a coupon limited to mada and card, and buys', async () => {
    const { store, product } = await shop(world.deps);
    const customer = await createCustomer(store, {
      first_name: 'Sara',
      last_name: 'Ali',
      phone: '500007123',
    });
    await coupon(store, { code: 'CARD15', amount: 1500, payment_restrictions: ['card', 'mada'] });
    const url = world.page('/customer', merchantPage(world, product, store));
    const page = await newPage();
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      // Saudi Arabia is the first country offered.
      await dialog.getByLabel('Sign in with phone').check();
      const firstCountry = await dialog
        .locator('select[autocomplete=tel-country-code] option')
        .first()
        .textContent();
      expect(firstCountry).to.contain('Saudi Arabia (+966)');
      await dialog.locator('[autocomplete=tel-national]').fill(customer.phone);
      await dialog.getByRole('button', { name: 'Send code' }).click();
      await dialog.getByText(/We sent a 4-digit code to/).waitFor();
      expect(await dialog.getByRole('button', { name: /Resend code in \d+ s/ }).isDisabled()).to.equal(true);

      const code = await waitFor(
        'the OTP in the dev outbox',
        async () => {
          const res = await fetch(`${world.api}/__dev/outbox?to=966${customer.phone}`);
          const body = (await res.json()) as { messages: { body: string }[] };
          return /\b(\d{4})\b/.exec(body.messages[0]?.body ?? '')?.[1];
        },
        30_000,
      );
      // A wrong code first: the remaining attempts are announced.
      const wrong = code === '0000' ? '1111' : '0000';
      await dialog.locator('[autocomplete=one-time-code]').fill(wrong);
      await dialog.getByText('That code is not right. 2 attempts left.').first().waitFor();
      await dialog.locator('[autocomplete=one-time-code]').fill(code);
      await dialog.getByText('Signed in as Sara Ali').waitFor();

      await dialog.getByLabel('Coupon code').fill('NOPE');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await dialog.getByRole('alert').getByText('This coupon code does not exist.').waitFor();
      expect(await dialog.getByLabel('Coupon code').getAttribute('aria-invalid')).to.equal('true');
      await dialog.getByLabel('Coupon code').fill('card15');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await dialog.getByText(/CARD15 applied/).waitFor();
      const methods = await dialog
        .locator('input[type=radio][name^=mj-method]')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      expect(methods).to.deep.equal(['card', 'mada']);
      await dialog.locator('input[type=radio][value=mada]').check();
      expect(await dialog.locator('dd.t').textContent()).to.contain('46.75');

      const popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await payInPopup(await popupOpened);
      const shown = await shownOrderId(page);
      const order = await world.deps.knex('orders').where({ id: shown }).first();
      expect(order).to.include({ customer_id: customer.id, payment_method: 'mada', total_minor: 4_675 });

      // The token was saved: opening the widget again skips the OTP (auth/validate).
      await dialog.getByRole('button', { name: 'Done' }).click();
      await page.locator('#buy').click();
      await page.getByRole('dialog').getByText('Signed in as Sara Ali').waitFor();
    } finally {
      await page.context().close();
    }
  });

  it('registers a new customer after the code, keeps the token, offers the subscription plans, and signs out', async () => {
    const { store } = await shop(world.deps);
    const product = await createProduct(store, {
      name: 'VIP Membership',
      type: 'subscription',
      price_minor: 2_900,
    });
    for (const [position, name, price, duration] of [
      [0, 'Monthly', 2_900, 'monthly'],
      [1, 'Yearly', 29_000, 'yearly'],
    ] as const) {
      await ProductPlan.query().insert({
        product_id: product.id,
        name,
        price_minor: price,
        duration,
        position,
        active: true,
      });
    }
    const url = world.page('/register', merchantPage(world, product, store));
    const page = await newPage();
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Sign in with phone').check();
      await dialog.locator('[autocomplete=tel-national]').fill('500009556');
      await dialog.locator('[autocomplete=tel-national]').press('Enter');
      await dialog.locator('[autocomplete=one-time-code]').waitFor();
      const code = await waitFor(
        'the OTP in the dev outbox',
        async () => {
          const res = await fetch(`${world.api}/__dev/outbox?to=966500009556`);
          const body = (await res.json()) as { messages: { body: string }[] };
          return /\b(\d{4})\b/.exec(body.messages[0]?.body ?? '')?.[1];
        },
        30_000,
      );
      await dialog.locator('[autocomplete=one-time-code]').fill(code);
      await dialog.getByText('Welcome! Tell us who you are to finish signing up.').waitFor();
      await dialog.locator('[autocomplete=given-name]').fill('Layla');
      await dialog.locator('[autocomplete=family-name]').fill('Hassan');
      await dialog.locator('[autocomplete=email]').fill('layla@example.com');
      await dialog.getByRole('button', { name: 'Continue', exact: true }).click();
      await dialog.getByText('Signed in as Layla Hassan').waitFor();
      const saved = await page.evaluate(`localStorage.getItem('matjar:token:${store.embed_key}')`);
      expect(saved).to.be.a('string').and.have.length.above(20);

      expect(await dialog.locator('dd.t').textContent()).to.contain('29.00');
      await dialog.getByLabel(/Yearly/).check();
      expect(await dialog.locator('dd.t').textContent()).to.contain('290.00');

      await dialog.getByRole('button', { name: 'Sign out' }).click();
      await dialog.locator('[autocomplete=tel-national]').waitFor();
      expect(await page.evaluate(`localStorage.getItem('matjar:token:${store.embed_key}')`)).to.equal(null);
    } finally {
      await page.context().close();
    }
  });

  it('places a free order with a 100 % coupon without any payment window', async () => {
    const { store, product } = await shop(world.deps);
    await coupon(store, { code: 'FREE100', amount: 10_000 });
    const url = world.page('/free', merchantPage(world, product, store));
    const page = await newPage();
    let popups = 0;
    page.context().on('page', () => (popups += 1));
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Continue as guest').check();
      await dialog.locator('[autocomplete=given-name]').fill('Free');
      await dialog.locator('[autocomplete=family-name]').fill('Buyer');
      await dialog.locator('[autocomplete=email]').fill('free@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('500009222');
      await dialog.getByLabel('Coupon code').fill('FREE100');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await dialog.getByText(/FREE100 applied/).waitFor();
      expect(await dialog.locator('input[type=radio][name^=mj-method]').count()).to.equal(0);
      await dialog.getByRole('button', { name: 'Get it free' }).click();
      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, product.id)).to.deep.equal([shown]);
      await dialog.getByText('Your order is placed.').waitFor();
      expect(popups).to.equal(0);
    } finally {
      await page.context().close();
    }
  });

  it('shows PayPal details to copy, then the order id once the store confirms the payment', async () => {
    const { store, product } = await shop(world.deps);
    await createPaymentMethod(store, {
      method: 'paypal',
      provider: 'paypal',
      settings: { email: 'pay@shop.test' },
    });
    const url = world.page('/paypal', merchantPage(world, product, store));
    const page = await newPage();
    let popups = 0;
    page.context().on('page', () => (popups += 1));
    try {
      await page.goto(url);
      await recordEvents(page);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Continue as guest').check();
      await dialog.locator('[autocomplete=given-name]').fill('Pay');
      await dialog.locator('[autocomplete=family-name]').fill('Pal');
      await dialog.locator('[autocomplete=email]').fill('paypal@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('500009666');
      await dialog.locator('input[type=radio][value=paypal]').check();
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog.getByRole('heading', { name: 'Pay with PayPal' }).waitFor();
      await dialog.getByText('pay@shop.test').waitFor();
      await dialog.getByRole('button', { name: 'Copy PayPal' }).waitFor();
      // The window opened for a possible redirect is closed again: PayPal here is manual.
      await waitFor('the spare window closed', async () => page.context().pages().length === 1);

      const order = await world.deps
        .knex('orders')
        .where({ payment_method: 'paypal' })
        .orderBy('id', 'desc')
        .first();
      await confirmManualPayment(world.deps, order.id);
      expect(await shownOrderId(page)).to.equal(order.id);
      expect(popups).to.equal(1);
    } finally {
      await page.context().close();
    }
  });

  it('offers a button to the payment page when the browser blocks the payment window', async () => {
    const { store, product } = await shop(world.deps);
    const url = world.page('/blocked', merchantPage(world, product, store));
    const page = await newPage();
    // A pop-up blocker: window.open answers null.
    await page.addInitScript('window.open = () => null;');
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Continue as guest').check();
      await dialog.locator('[autocomplete=given-name]').fill('Block');
      await dialog.locator('[autocomplete=family-name]').fill('Ed');
      await dialog.locator('[autocomplete=email]').fill('blocked@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('500009777');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog
        .getByRole('alert')
        .getByText(/blocked the payment window/)
        .waitFor();
      // The view does not send the buyer looking for a window that never opened.
      expect(await dialog.getByText(/window that opened/).count()).to.equal(0);
      const popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('link', { name: 'Open the payment page' }).click();
      await payInPopup(await popupOpened);
      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, product.id)).to.deep.equal([shown]);
    } finally {
      await page.context().close();
    }
  });
});
