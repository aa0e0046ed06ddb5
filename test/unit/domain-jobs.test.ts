import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import type { QueueName } from '../../shared/queues';
import { handlerFor, type KindOf } from '../../shared/queues/handlers';
import { DOMAIN_JOBS } from '../../workers/processors/dispatch';

/**
 * Each domain declares its queue work in its folder's jobs.ts, and the worker's processors only dispatch
 * (shared/queues/handlers.ts). "Which service does this job run" is answered by the domain's folder.
 */
const ROOT = path.resolve(__dirname, '../..');
const SERVICES = path.join(ROOT, 'shared/services');

/** Every kind of every dispatched queue; `satisfies` makes the compiler add a kind added to a payload. */
const KINDS: { readonly [N in Exclude<QueueName, 'analytics'>]: readonly string[] } = {
  otp: ['job'],
  emails: ['job'],
  subscriptions: ['job'],
  fulfilment: ['job'],
  fivem: ['job'],
  maintenance: ['job'],
  'merchant-webhooks': ['job'],
  messages: Object.keys({
    order_delivery: 1,
    order_resend: 1,
    delivery_resend: 1,
    refund: 1,
    checkout_reminder: 1,
    key_claim: 1,
    order_notice: 1,
    subscription: 1,
  } satisfies Record<KindOf<'messages'>, 1>),
  payments: Object.keys({ initiate: 1, refund: 1, webhook: 1, reconcile: 1 } satisfies Record<
    KindOf<'payments'>,
    1
  >),
  licenses: Object.keys({ generate: 1, expire: 1 } satisfies Record<KindOf<'licenses'>, 1>),
};

/**
 * Processors that do more than dispatch, with why: analytics gathers many jobs' rows into one batch
 * write held per worker process (shared/services/analytics/writer.ts), which is the processor's state.
 */
const NOT_DISPATCHING: Record<string, string> = {
  'analytics.ts': 'batches rows of many jobs in a per-process writer',
};

describe('domain jobs', () => {
  it('every kind of every queue has exactly one handler, declared by one domain', () => {
    const tables = Object.entries(DOMAIN_JOBS);
    const owners: string[] = [];
    for (const [queue, kinds] of Object.entries(KINDS)) {
      for (const kind of kinds) {
        const declaring = tables.filter(([, table]) => {
          const handlers = table[queue as QueueName] as Record<string, unknown> | undefined;
          return handlers !== undefined && Object.hasOwn(handlers, kind);
        });
        expect(
          declaring.map(([domain]) => domain),
          `${queue}/${kind}`,
        ).to.have.length(1);
        owners.push(`${queue}/${kind}: ${declaring[0]![0]}`);
      }
    }
    expect(owners).to.include.members([
      'messages/refund: refunds',
      'payments/refund: orders',
      'payments/reconcile: payments',
      'messages/checkout_reminder: growth',
      'licenses/expire: maintenance',
    ]);
  });

  it('a job is dispatched by its kind, and a kind nobody declares finds no handler', () => {
    const tables = Object.values(DOMAIN_JOBS);
    expect(handlerFor(tables, 'messages', { kind: 'refund', refundId: 1 })).to.equal(
      DOMAIN_JOBS.refunds!.messages!.refund,
    );
    expect(handlerFor(tables, 'otp', { otpSessionId: 1, codeVersion: 1, route: 'sms_only' })).to.equal(
      DOMAIN_JOBS.otp!.otp!.job,
    );
    // A kind no payload type has (a job written by another version of the code), as Redis would hand it over.
    const unknown: unknown = { kind: 'gift_card', orderId: 1 };
    expect(handlerFor(tables, 'messages', unknown as never)).to.equal(null);
  });

  it("each domain folder's jobs.ts is registered under its folder's name, and only those", () => {
    const withJobs = fs
      .readdirSync(SERVICES, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(SERVICES, d.name, 'jobs.ts')))
      .map((d) => d.name)
      .sort();
    expect(withJobs.length).to.be.above(10);
    expect(Object.keys(DOMAIN_JOBS).sort()).to.deep.equal(withJobs);
  });

  it('processors import no service function: only jobs tables, types and error classes', () => {
    const dir = path.join(ROOT, 'workers/processors');
    const offending: string[] = [];
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !(f in NOT_DISPATCHING))) {
      const file = ts.createSourceFile(
        name,
        fs.readFileSync(path.join(dir, name), 'utf8'),
        ts.ScriptTarget.Latest,
      );
      for (const statement of file.statements) {
        if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
        const spec = statement.moduleSpecifier.text;
        if (!spec.includes('shared/services/') || spec.endsWith('/jobs')) continue;
        const clause = statement.importClause;
        if (!clause || clause.isTypeOnly) continue;
        const bindings = clause.namedBindings;
        const names =
          bindings && ts.isNamedImports(bindings)
            ? bindings.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text)
            : [clause.name?.text ?? '*'];
        for (const imported of names.filter((n) => !/Error$/.test(n))) offending.push(`${name}: ${imported}`);
      }
    }
    expect(offending).to.deep.equal([]);
  });
});
