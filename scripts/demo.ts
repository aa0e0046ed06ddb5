/**
 * `npm run demo`, with `npm start` running: a whole purchase through the public API only, printed step by
 * step (the request, then a short answer). Sign in by OTP read from the dev outbox, guest checkout of the
 * demo store's code key, payment through the sandbox page (docs/operations.md), status polling, and the
 * delivered key read from the dev outbox; then the buyer's account (/account, docs/account.md) signed in
 * with the same phone shows the order. README "Try the demo" shows the same steps as curl commands.
 *
 * DEMO_BASE_URL (default PUBLIC_BASE_URL, else http://localhost:$PORT) names the running platform;
 * DEMO_EMBED_KEY (default the demo fixture's) the store.
 */

const PORT = process.env.PORT ?? '3000';
const BASE = (process.env.DEMO_BASE_URL ?? process.env.PUBLIC_BASE_URL ?? `http://localhost:${PORT}`).replace(
  /\/$/,
  '',
);
const EMBED_KEY = process.env.DEMO_EMBED_KEY ?? 'emb_pk_demo_0001';
const COUNTRY = '966';
const POLL_MS = 1_000;
const POLL_LIMIT_MS = 60_000;

const say = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

class DemoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  json: Json;
  text: string;
  /** `name=value` of each Set-Cookie (the buyer's account's cookies). */
  cookies: string[];
}

let step = 0;
function title(text: string): void {
  step += 1;
  say();
  say(`── ${step}. ${text}`);
}

function short(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

async function call(
  method: 'GET' | 'POST',
  path: string,
  opts: {
    json?: unknown;
    form?: Record<string, string>;
    embed?: boolean;
    quiet?: boolean;
    cookie?: string;
  } = {},
): Promise<Answer> {
  const url = path.startsWith('http') ? path : `${BASE}${path}`;
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.Cookie = opts.cookie;
  let body: string | undefined;
  if (opts.embed) headers['X-Embed-Key'] = EMBED_KEY;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  if (!opts.quiet) {
    say(`   ${method} ${url}${opts.embed ? '   (X-Embed-Key)' : ''}`);
    if (body) say(`   ${short(body, 200)}`);
  }
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, redirect: 'manual' });
  } catch (err) {
    throw new DemoError(
      `cannot reach ${BASE} (${(err as Error).message}): start the platform with \`npm start\` first`,
    );
  }
  const text = await res.text();
  let json: Json = {};
  try {
    json = text ? (JSON.parse(text) as Json) : {};
  } catch {
    // an HTML page
  }
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  return { status: res.status, json, text, cookies };
}

function expectOk(answer: Answer, what: string): Json {
  if (answer.status >= 300) {
    throw new DemoError(`${what}: HTTP ${answer.status} ${short(answer.json.message ?? answer.text)}`);
  }
  return (answer.json.data as Json | undefined) ?? answer.json;
}

function show(answer: Answer, summary: string): void {
  say(`   → ${answer.status} ${summary}`);
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new DemoError(`gave up waiting for ${what} after ${POLL_LIMIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function outbox(to: string): Promise<{ body: string }[]> {
  const answer = await call('GET', `/__dev/outbox?to=${to}`, { quiet: true });
  if (answer.status === 404) throw new DemoError('the dev outbox answers 404: is NODE_ENV=production?');
  return (answer.json.messages as { body: string }[] | undefined) ?? [];
}

/** The demo store's code-key product: the first product id the Embed API shows with type `code`. */
async function codeProduct(): Promise<{ id: number; name: string; price: unknown }> {
  for (let id = 1; id <= 50; id += 1) {
    const answer = await call('GET', `/api/embed/product/${id}`, { embed: true, quiet: true });
    if (answer.status === 401 || answer.status === 403) {
      throw new DemoError(`the embed key ${EMBED_KEY} is refused (${answer.status}); set DEMO_EMBED_KEY`);
    }
    const data = answer.json.data as { id: number; name: string; type: string; price: unknown } | undefined;
    if (answer.status === 200 && data?.type === 'code') return data;
  }
  throw new DemoError(
    'the demo store has no code product among ids 1 to 50 (was fixtures/demo.json seeded?)',
  );
}

export async function main(): Promise<number> {
  const started = Date.now();
  // A new buyer every run: a fresh phone, so the outbox lines are this run's. `55` and 7 digits is always a
  // valid Saudi mobile number (a `5` and any 8 digits is not: 51, 52 and some 57 numbers are refused).
  const phone = `55${String(Date.now() % 10_000_000).padStart(7, '0')}`;
  const to = `${COUNTRY}${phone}`;
  say(`Demo purchase against ${BASE} (buyer +${COUNTRY} ${phone})`);

  try {
    title('The product: the Embed API shows it to the widget');
    const product = await codeProduct();
    const productAnswer = await call('GET', `/api/embed/product/${product.id}`, { embed: true });
    show(productAnswer, `${product.name}, type code, price ${short(product.price, 80)}`);

    title('Sign in by phone: the code goes out by WhatsApp/SMS (here: the dev outbox)');
    const start = await call('POST', '/api/embed/auth/start', {
      embed: true,
      json: { product_id: product.id, country_code: COUNTRY, phone },
    });
    const session = expectOk(start, 'auth/start');
    show(
      start,
      `session_token ${short(session.session_token, 24)}, masked_phone ${String(session.masked_phone)}`,
    );

    title('Read the code from the dev outbox');
    say(`   GET ${BASE}/__dev/outbox?to=${to}`);
    const code = await poll('the OTP in the outbox', async () => {
      for (const message of await outbox(to)) {
        const runs = message.body.match(/(?<!\d)\d{4}(?!\d)/g);
        if (runs?.length === 1) return runs[0];
      }
      return undefined;
    });
    say(`   → 200 code ${code}`);

    title('Verify the code');
    const verify = await call('POST', '/api/embed/auth/verify', {
      embed: true,
      json: { session_token: session.session_token, code },
    });
    const verified = expectOk(verify, 'auth/verify');
    show(verify, `status ${String(verified.status)}`);
    if (verified.status === 'needs_registration') {
      title('Register the new customer');
      const complete = await call('POST', '/api/embed/auth/complete', {
        embed: true,
        json: {
          session_token: verified.session_token ?? session.session_token,
          firstName: 'Demo',
          lastName: 'Buyer',
          email: `buyer-${phone}@example.com`,
        },
      });
      const registered = expectOk(complete, 'auth/complete');
      show(complete, `customer id ${String((registered.customer as Json | undefined)?.id)}, token issued`);
    }

    title('Guest checkout');
    const checkoutAnswer = await call('POST', '/api/embed/guest/checkout', {
      embed: true,
      json: {
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'Demo',
        customer_last_name: 'Buyer',
        customer_email: `buyer-${phone}@example.com`,
        customer_phone: phone,
        customer_country_code: COUNTRY,
      },
    });
    const checkout = expectOk(checkoutAnswer, 'guest/checkout');
    const methods = ((checkout.payment_methods as { id: string }[] | undefined) ?? []).map((m) => m.id);
    show(
      checkoutAnswer,
      `${String(checkout.type)}, amount ${String(checkout.amount)}, checkout_url ${short(checkout.checkout_url, 20)}, methods ${methods.join(' ')}`,
    );
    if (!methods.includes('card')) throw new DemoError('the demo store offers no card payment');

    title('Start the payment (card, sandbox provider)');
    const initiate = await call('POST', '/api/embed/guest/payment/initiate', {
      embed: true,
      json: { checkout_url: checkout.checkout_url, payment_method: 'card' },
    });
    const payment = expectOk(initiate, 'guest/payment/initiate');
    const redirectUrl = String(payment.redirect_url);
    show(initiate, `type ${String(payment.type)}, redirect_url ${redirectUrl}`);

    title('The sandbox page at the redirect_url: Pay or Fail');
    const page = await call('GET', redirectUrl);
    const buttons = [...page.text.matchAll(/<button[^>]*>([^<]+)<\/button>/g)].map((m) => m[1]);
    show(page, `HTML page with the buttons ${buttons.map((b) => `[${b}]`).join(' ')}`);

    title('Press Pay: POST outcome=paid on the same address');
    const pay = await call('POST', redirectUrl, { form: { outcome: 'paid' } });
    if (pay.status !== 200) throw new DemoError(`Pay: HTTP ${pay.status}`);
    show(pay, 'the page confirms the payment (the sandbox sends its signed webhook to the platform)');

    title('Poll the payment status until it is paid');
    const statusPath = `/api/embed/payment/status/${encodeURIComponent(String(checkout.checkout_url))}`;
    say(`   GET ${BASE}${statusPath}   (every ${POLL_MS / 1000} s)`);
    const status = await poll('is_paid', async () => {
      const answer = await call('GET', statusPath, { quiet: true });
      const data = answer.json.data as { is_paid?: boolean; order_id?: number } | undefined;
      return data?.is_paid ? data : undefined;
    });
    say(`   → 200 is_paid true, order_id ${String(status.order_id)}`);

    title('The key, delivered by message (dev outbox)');
    say(`   GET ${BASE}/__dev/outbox?to=${to}`);
    const delivery = await poll('the key in the outbox', async () =>
      (await outbox(to)).find((m) => m.body.includes(`#${String(status.order_id)}`)),
    );
    say(`   → 200 ${delivery.body.split('\n').join(' | ')}`);

    title('The buyer’s account: sign in at /account with the same phone, and find the order there');
    const seen = (await outbox(to)).length;
    const signIn = await call('POST', '/account/signin/phone', {
      form: { country_code: COUNTRY, phone },
    });
    if (signIn.status !== 303) throw new DemoError(`/account/signin/phone: HTTP ${signIn.status}`);
    show(signIn, 'to the code page');
    const accountCode = await poll('the account code in the outbox', async () => {
      const list = await outbox(to);
      const match = list.length > seen ? /(?<!\d)\d{4,8}(?!\d)/.exec(list[0]!.body) : null;
      return match ? match[0] : undefined;
    });
    const confirmed = await call('POST', '/account/code', {
      form: { code: accountCode },
      cookie: signIn.cookies.join('; '),
    });
    const accountSession = confirmed.cookies.find((c) => c.startsWith('matjar_account='));
    if (confirmed.status !== 303 || !accountSession)
      throw new DemoError(`/account/code: HTTP ${confirmed.status}`);
    show(confirmed, 'signed in (HttpOnly session cookie)');
    const account = await call('GET', '/account?lang=en', { cookie: accountSession });
    if (!account.text.includes(`Order ${String(status.order_id)}<`)) {
      throw new DemoError(`the account does not show order ${String(status.order_id)}`);
    }
    show(account, `the account lists order ${String(status.order_id)} with its key`);
    say(`   Open ${BASE}/account in a browser and sign in with +${COUNTRY} ${phone} to see it yourself.`);

    say();
    say(
      `Done: order #${String(status.order_id)} paid and delivered in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    return 0;
  } catch (err) {
    say();
    say(`demo: ${err instanceof DemoError ? err.message : (err as Error).stack}`);
    return 1;
  }
}
