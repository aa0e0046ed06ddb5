/**
 * A purchase through the packed SDK, as a customer's project writes it: test/integration/sdk-package.test.ts
 * installs the package's tarball into a scratch project, compiles this file there (under `nodenext` and
 * under `bundler` module resolution) and runs it against the platform. It signs a buyer in by OTP (the
 * code read from the development outbox, docs/operations.md), opens a guest checkout, pays it with the
 * sandbox provider and asks the payment status until it is paid, then prints one line of JSON.
 *
 * Settings come from the environment: MATJAR_BASE_URL, MATJAR_EMBED_KEY, MATJAR_PRODUCT_ID, BUYER_PHONE
 * (the number without its country code; the country code is 966).
 */
import { createMatjarClient, type Schema } from '@matjar/sdk';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const baseUrl = setting('MATJAR_BASE_URL');
const embedKey = setting('MATJAR_EMBED_KEY');
const productId = Number(setting('MATJAR_PRODUCT_ID'));
const phone = setting('BUYER_PHONE');
const countryCode = '966';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks `attempt` every 100 ms until it answers something, for at most 15 s. */
async function poll<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const value = await attempt();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

const matjar = createMatjarClient({ baseUrl, embedKey, language: 'en' });

// 1. Sign-in by OTP. The development outbox (absent in production) shows what the platform sent.
const started = await matjar.POST('/api/embed/auth/start', {
  body: { product_id: productId, country_code: countryCode, phone },
});
if (!started.data) throw new Error(`auth/start: ${started.error?.message}`);
const code = await poll('the sign-in code', async () => {
  const res = await fetch(`${baseUrl}/__dev/outbox?to=${countryCode}${phone}`);
  const outbox = (await res.json()) as { messages: { body: string | null }[] };
  return outbox.messages[0]?.body?.match(/(?<!\d)\d{4}(?!\d)/)?.[0];
});
const verified = await matjar.POST('/api/embed/auth/verify', {
  body: { session_token: started.data.data.session_token, code },
});
if (!verified.data) throw new Error(`auth/verify: ${verified.error?.message}`);
const result = verified.data.data;
let signedIn: Schema<'Registered'>;
if (result.status === 'authenticated') {
  signedIn = { customer: result.customer, token: result.token };
} else {
  const registered = await matjar.POST('/api/embed/auth/complete', {
    body: {
      session_token: result.session_token,
      firstName: 'Sara',
      lastName: 'Ali',
      email: `sara.${phone}@example.com`,
    },
  });
  if (!registered.data) throw new Error(`auth/complete: ${registered.error?.message}`);
  signedIn = registered.data.data;
}
const buyer = createMatjarClient({ baseUrl, embedKey, customerToken: signedIn.token });
const validated = await buyer.POST('/api/embed/auth/validate', { body: { product_id: productId } });
if (!validated.data) throw new Error(`auth/validate: ${validated.error?.message}`);

// 2. A guest checkout of one unit.
const opened = await matjar.POST('/api/embed/guest/checkout', {
  body: {
    product_id: productId,
    quantity: 1,
    customer_first_name: 'Sara',
    customer_last_name: 'Ali',
    customer_email: `sara.${phone}@example.com`,
    customer_phone: phone,
    customer_country_code: countryCode,
  },
});
if (!opened.data) throw new Error(`guest/checkout: ${opened.error?.message}`);
const session = opened.data.data;
if (session.type !== 'payment_required') throw new Error(`expected a payment, got ${session.type}`);

// 3. The sandbox payment: its redirect_url takes the buyer's choice as a form post (503 while the
// provider session is being opened). The page lives under PUBLIC_BASE_URL; here it is asked of baseUrl.
const initiated = await matjar.POST('/api/embed/guest/payment/initiate', {
  body: { checkout_url: session.checkout_url, payment_method: 'card' },
});
if (!initiated.data) throw new Error(`guest/payment/initiate: ${initiated.error?.message}`);
const how = initiated.data.data;
if (how.type !== 'redirect') throw new Error(`expected a redirect, got ${how.type}`);
const page = new URL(how.redirect_url);
await poll('the sandbox to take the payment', async () => {
  const res = await fetch(new URL(page.pathname + page.search, baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ outcome: 'paid' }),
  });
  await res.body?.cancel();
  if (res.status === 503) return undefined;
  if (res.status !== 200) throw new Error(`sandbox payment page answered ${res.status}`);
  return true;
});

// 4. The payment status, until paid.
const paid = await poll('the payment to be confirmed', async () => {
  const status = await matjar.GET('/api/embed/payment/status/{checkoutUrl}', {
    params: { path: { checkoutUrl: session.checkout_url } },
  });
  return status.data?.data.is_paid ? status.data.data : undefined;
});

process.stdout.write(
  JSON.stringify({
    customer_id: signedIn.customer.id,
    checkout_id: session.checkout_id,
    amount: session.amount,
    order_id: paid.order_id,
  }) + '\n',
);
