import type { Knex } from 'knex';
import { Payment } from '../../../db/models';
import type { SandboxEvent, SandboxGateway } from '../../providers/sandbox';
import { PaymentPageRefs } from './page-ref';

/**
 * The sandbox's Pay/Fail choice taken on the payment page itself (docs/operations.md): the `redirect_url`
 * that payment/initiate answers shows the sandbox's buttons on GET and takes `outcome=paid|failed` on POST,
 * with no redirect to follow. The choice is recorded on the sandbox provider's side only (its own table,
 * through `SandboxGateway`); the platform learns of it from the provider's signed webhook, exactly as with
 * a real provider, so nothing here touches the payment, the checkout or an order.
 */

export type SandboxChoice =
  | { kind: 'not_found' }
  /** The payment is with a real provider: its page takes no choice. */
  | { kind: 'not_sandbox' }
  /** The provider session is still being opened by the worker (or its opening failed). */
  | { kind: 'preparing' }
  | { kind: 'not_open'; status: string }
  /** The other button was pressed first. */
  | { kind: 'conflict'; decided: 'paid' | 'failed' | 'pending' }
  | { kind: 'decided'; event: SandboxEvent };

export interface SandboxChoiceOptions {
  /** How long to wait for the worker to open the provider session (a POST right after initiate). */
  waitMs?: number;
  pollMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records `outcome` for the payment named by the page reference `ref`. Two posts of the same outcome (a
 * double click, two clients at once) are one decision: the gateway's conditional UPDATE lets one through
 * and both get the same event, which the platform keeps once per event id.
 */
export async function chooseSandboxOutcome(
  deps: { knex: Knex; appSecret: string; appSecretPrevious?: readonly string[]; gateway: SandboxGateway },
  ref: string,
  outcome: 'paid' | 'failed' | 'disputed',
  opts: SandboxChoiceOptions = {},
): Promise<SandboxChoice> {
  const paymentId = new PaymentPageRefs(deps.appSecret, deps.appSecretPrevious).parse(ref);
  if (paymentId === null) return { kind: 'not_found' };
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (;;) {
    const payment = await Payment.query(deps.knex).findById(paymentId);
    if (!payment) return { kind: 'not_found' };
    if (payment.provider !== 'sandbox') return { kind: 'not_sandbox' };
    if (payment.provider_payment_id) {
      // A dispute (section 7's `outcome=disputed`) is the card holder's, after the payment was paid.
      const decision =
        outcome === 'disputed'
          ? await deps.gateway.dispute(payment.provider_payment_id)
          : await deps.gateway.decide(payment.provider_payment_id, outcome);
      if (decision.kind === 'unknown') return { kind: 'not_found' };
      if (decision.kind === 'conflict') {
        return {
          kind: 'conflict',
          decided:
            decision.payment.status === 'paid'
              ? 'paid'
              : decision.payment.status === 'failed'
                ? 'failed'
                : 'pending',
        };
      }
      return { kind: 'decided', event: decision.event };
    }
    if (payment.status !== 'pending' || outcome === 'disputed')
      return { kind: 'not_open', status: payment.status };
    if (Date.now() >= deadline) return { kind: 'preparing' };
    await sleep(opts.pollMs ?? 100);
  }
}
