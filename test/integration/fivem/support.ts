import { ORDER_STATUS, Order, Product, ProductFivemCommand, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createFivemServer, IssuedSecret } from '../../../shared/services/fivem';
import { queueFivemCommands } from '../../../shared/services/fulfilment';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { createProduct } from '../../helpers/builders';
import { guestCheckout, insertCheckout } from '../../helpers/checkouts';
import type { TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  guestInitiate,
  insertPaidPayment,
  orderOf,
  paymentIdOf,
  sessionOf,
} from '../payments/support';

/** A product with a "Player ID" custom field (index 1) and the given command templates. */
export async function fivemProduct(
  store: Store,
  templates: Partial<ProductFivemCommand>[],
): Promise<Product> {
  const product = await createProduct(store, {
    fields: [
      { type: 'text', label: 'Discord name', required: false },
      { type: 'text', label: 'Player ID', required: true },
    ],
  });
  for (const [position, t] of templates.entries()) {
    await ProductFivemCommand.query().insert({
      product_id: product.id,
      command: 'give {player} vip',
      require_online: false,
      position,
      ...t,
    });
  }
  return product;
}

/** A paid order of `product` for `player`, its purchase commands queued as the `fivem` job would. */
export async function paidOrder(
  deps: Deps,
  store: Store,
  product: Product,
  player: string,
  quantity = 1,
): Promise<Order> {
  const { checkout } = await insertCheckout(store, product, {
    quantity,
    fields: { '1': { type: 'text', label: 'Player ID', value: player } },
    customer_phone: '500009601',
  });
  const payment = await insertPaidPayment(checkout);
  const { order } = await deps.tx((uow) =>
    createOrderFromCheckout(uow, checkout.id, {
      status: ORDER_STATUS.COMPLETED,
      paymentId: payment.id,
      paymentMethod: 'card',
    }),
  );
  await queueFivemCommands(deps.knex, order.id);
  return order;
}

export function gameServer(deps: Deps, store: Store, name = 'main'): Promise<IssuedSecret> {
  return createFivemServer(deps.knex, store.id, name);
}

export interface QueueCommand {
  id: number;
  command: string;
  player: string | null;
}

/** The FiveM API as the resource calls it, each request from an address of its own. */
export class FivemClient {
  constructor(
    private readonly server: TestServer,
    readonly secret: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'X-FiveM-Secret': this.secret, 'X-Forwarded-For': randomIp(), ...extra };
  }

  queue(): Promise<TestResponse> {
    return this.server.request('/api/fivem/queue', { headers: this.headers() });
  }

  online(player: string): Promise<TestResponse> {
    return this.server.request(`/api/fivem/queue/online/${encodeURIComponent(player)}`, {
      headers: this.headers(),
    });
  }

  ack(body: unknown): Promise<TestResponse> {
    return this.server.request('/api/fivem/queue', { method: 'DELETE', json: body, headers: this.headers() });
  }
}

export const commandsOf = (res: TestResponse): QueueCommand[] =>
  (res.body.data as { commands: QueueCommand[] }).commands;
export const idsOf = (res: TestResponse): number[] => commandsOf(res).map((c) => c.id);

/**
 * Buys `product` as a guest through the Embed API and the sandbox provider's page (Pay), as a customer
 * would; answers the order once the paid webhook created it. The suite needs real workers.
 */
export async function buyThroughSandbox(
  deps: Deps,
  server: TestServer,
  store: Store,
  product: Product,
  fields: Record<string, string>,
  phone: string,
): Promise<Order> {
  const checkout = await guestCheckout(
    server,
    store,
    { product_id: product.id, fields },
    { customer_phone: phone },
  );
  const initiated = await guestInitiate(server, store, checkout.checkoutUrl, 'card');
  if (initiated.status !== 200)
    throw new Error(`payment/initiate answered ${initiated.status}: ${initiated.text}`);
  const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
  const session = await sessionOf(paymentIdOf(redirectUrl));
  const page = `${deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`;
  const paid = await browse(server, page, { outcome: 'paid' });
  if (paid.status !== 303) throw new Error(`the sandbox page answered ${paid.status}`);
  return orderOf(checkout.checkoutId);
}
