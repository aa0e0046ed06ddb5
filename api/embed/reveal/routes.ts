import Joi from 'joi';
import { revealGoods } from '../../../shared/services/reveal/reveal';
import { NotFoundError } from '../../../shared/errors';
import { CHECKOUT_STATUS_NOT_FOUND } from '../../../shared/services/payment-records/status';
import { embedOk, schemaRef } from '../../openapi/components';
import { opaque } from '../../http/fields';
import { defineRoute } from '../../http/route';
import { embedGuards } from '../../guards';
import { refused } from '../responses';

type RevealBody = { checkout_url: string; reveal_token: string };

export const embedRevealRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/embed/order/reveal',
    interface: 'embed',
    operationId: 'embedOrderReveal',
    summary: 'The goods of a paid order, for the browser that paid',
    description:
      'The code keys, license keys and download addresses of the checkout’s order, and where else they ' +
      'were sent (masked), for the browser that checked out: it sends the `checkout_url` and the ' +
      '`reveal_token` of its checkout answer (only a hash of the token is kept; compared in constant time). ' +
      'Shown for 30 minutes after the order was placed, while it is paid; never before payment, after a ' +
      'refund or after a cancellation (`hidden` with the reason). A wrong token, or a checkout of another ' +
      'store, answers 404 like an unknown checkout. A POST so that the secrets stay out of addresses and logs.',
    guards: embedGuards,
    request: {
      body: Joi.object<RevealBody, true>({
        checkout_url: opaque().required().description('From the checkout answer.'),
        reveal_token: opaque().required().description('From the checkout answer.'),
      }),
      example: { checkout_url: 'N3q0…', reveal_token: 'q9Zk…' },
    },
    responses: {
      200: embedOk('The goods, or why they are not shown.', schemaRef('OrderReveal'), {
        success: true,
        data: {
          state: 'shown',
          order_id: 1234,
          order_number: 1,
          items: [{ name: 'Steam Wallet 50', codes: ['STEAM-AAAA-BBBB'], license_keys: [], downloads: [] }],
          pending: false,
          sent_to: { phone: '+966 ••••••101', email: 'h•••@example.com' },
          until: '2026-11-28T10:30:00.000Z',
        },
      }),
      404: refused('Unknown checkout, another store’s, or a wrong reveal token.', 'Checkout not found'),
    },
    handler: async (ctx, { body }) => {
      const answer = await revealGoods(ctx.deps, {
        checkoutUrl: body.checkout_url,
        revealToken: body.reveal_token,
        storeId: ctx.state.store!.id,
      });
      if (answer.state === 'not_found') {
        throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
      }
      // The goods are secrets of this browser: never kept by a cache on the way.
      ctx.set('Cache-Control', 'no-store');
      return answer;
    },
  }),
];
