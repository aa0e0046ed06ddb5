import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { Refund } from '../../db/models/refund';
import { defineRoute } from '../../api/http/route';
import { merchantOk } from '../../api/merchant/responses';
import { type Infer, object, type SchemaObject } from '../../shared/json-schema';
import type { CustomerView } from '../../shared/services/customers';
import { customerSchema } from '../../shared/services/customers/schema';
import type { PageMeta } from '../../shared/views';
import { refundSchema, refundSummarySchema } from '../../shared/services/refunds/schema';
import { refundView, type RefundSummary, type RefundView } from '../../shared/services/refunds/view';

/**
 * Response schemas are the response types (api/http/README.md, "Answers"): a view's type is inferred from
 * the schema the OpenAPI document shows, and a route's typed answer types its handler. The type-level
 * checks below are compiled by `npx tsc` (a wrong inference does not compile); the run-time ones hold
 * what the view returns to the same schema, members and all.
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>): boolean => proof;

const sample = {
  id: { type: 'integer' },
  state: { type: ['string', 'null'], enum: ['open', 'closed', null] },
  tags: { type: 'array', items: { type: 'string' } },
  kind: { const: 'x' },
  either: { oneOf: [{ type: 'integer' }, { type: 'boolean' }] },
  note: { type: ['string', 'null'] },
  loose: {} as SchemaObject,
} as const satisfies Record<string, SchemaObject>;
const sampleSchema = object(sample, ['note']);

describe('response schemas are the response types', () => {
  it('infers members, optional ones, nullable enums, arrays, const and oneOf from a schema', () => {
    expect(
      same<
        Infer<typeof sampleSchema>,
        {
          id: number;
          state: 'open' | 'closed' | null;
          tags: string[];
          kind: 'x';
          either: number | boolean;
          note?: string | null;
          loose: unknown;
        }
      >(true),
    ).to.equal(true);
    expect(sampleSchema.required).to.deep.equal(['id', 'state', 'tags', 'kind', 'either', 'loose']);
    expect(same<Infer<SchemaObject>, unknown>(true)).to.equal(true);
  });

  it('types RefundView and RefundSummary by the schemas the Merchant API documents', () => {
    expect(
      same<
        RefundView,
        {
          id: number;
          order_id: number;
          amount: string;
          currency: string;
          status: 'pending' | 'succeeded' | 'failed';
          state: 'requested' | 'sent' | 'succeeded' | 'failed';
          kind: 'provider' | 'manual';
          provider: string;
          reason: string | null;
          note: string | null;
          withdraw_goods: boolean;
          provider_refund_id: string | null;
          provider_status: string | null;
          failure_reason: string | null;
          attempts: number;
          created_at: string;
          succeeded_at: string | null;
          failed_at: string | null;
        }
      >(true),
    ).to.equal(true);
    expect(
      same<
        RefundSummary,
        { currency: string; paid: string; refunded: string; pending: string; refundable: string }
      >(true),
    ).to.equal(true);
  });

  it('types CustomerView and PageMeta by their documented schemas', () => {
    expect(
      same<
        CustomerView,
        {
          id: number;
          firstName: string;
          lastName: string;
          email: string;
          phone: string;
          country_code: string;
        }
      >(true),
    ).to.equal(true);
    expect(
      same<PageMeta, { page: number; per_page: number; total: number; last_page: number }>(true),
    ).to.equal(true);
    expect(customerSchema.required).to.have.members([
      'id',
      'firstName',
      'lastName',
      'email',
      'phone',
      'country_code',
    ]);
  });

  it('refundView() returns exactly the members of its schema, each as the schema says', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile({ ...refundSchema, additionalProperties: false });
    const refund = Object.assign(new Refund(), {
      id: 7,
      store_id: 1,
      order_id: 12,
      payment_id: 3,
      amount_minor: 1250,
      currency: 'KWD',
      kind: 'provider',
      provider: 'moyasar',
      status: 'succeeded',
      reason: 'Customer request',
      note: null,
      withdraw_goods: false,
      idempotency_key: 'k',
      request_key: null,
      provider_refund_id: 'rf_1',
      provider_status: 'refunded',
      failure_reason: null,
      attempts: 1,
      merchant_token_id: null,
      succeeded_at: new Date('2026-11-27T10:00:00Z'),
      failed_at: null,
      created_at: new Date('2026-11-27T09:00:00Z'),
      updated_at: new Date('2026-11-27T10:00:00Z'),
    } satisfies Partial<Refund>);
    const view = refundView(refund);
    expect(validate(view), ajv.errorsText(validate.errors)).to.equal(true);
    expect(Object.keys(view).sort()).to.deep.equal([...refundSchema.required].sort());
    expect(view.amount).to.equal('1.250');
    expect(refundSummarySchema.required).to.have.members([
      'currency',
      'paid',
      'refunded',
      'pending',
      'refundable',
    ]);
  });

  it('a route whose 200 is typed takes a handler that returns that type, and refuses another', () => {
    const good = defineRoute({
      method: 'get',
      path: '/shawarma/sample',
      interface: 'merchant',
      operationId: 'sample',
      summary: 'A sample',
      responses: { 200: merchantOk('A summary.', refundSummarySchema) },
      handler: () => summary,
    });
    const wrong = defineRoute({
      method: 'get',
      path: '/shawarma/sample',
      interface: 'merchant',
      operationId: 'sample',
      summary: 'A sample',
      responses: { 200: merchantOk('A summary.', refundSummarySchema) },
      // A number where the schema says a decimal string: the typecheck refuses the handler.
      // @ts-expect-error -- `paid` is documented as a string
      handler: () => ({ ...summary, paid: 10 }),
    });
    expect(good.handler).to.be.a('function');
    expect(wrong.responses[200]).to.have.property('content');
  });
});

const summary: RefundSummary = {
  currency: 'SAR',
  paid: '10.00',
  refunded: '0.00',
  pending: '0.00',
  refundable: '10.00',
};
