import Joi from 'joi';
import { AuditFilters, listAudit } from '../../../shared/services/audit';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { id, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { AuditEvent, merchantOk, pageOf } from '../responses';

const auditQuery = listQuery<AuditFilters>({
  resource_type: Joi.string()
    .pattern(/^[a-z_-]{1,30}$/)
    .description('product, category, coupon, store, token, fivem_server, order, webhook, license, ...'),
  resource_id: id(),
  action: Joi.string().max(50),
});

export const merchantAuditRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/audit-log',
    interface: 'merchant',
    operationId: 'merchantListAuditLog',
    summary: 'The audit log (paginated)',
    description:
      'Every write made through the Merchant API, newest first: `action` (e.g. `product.updated`, ' +
      '`coupon.deactivated`, `store.embed_key_rotated`, `token.created`), the `resource`, who (`actor`) ' +
      'and with which `token` (name and last four characters), when, and what changed (`{key: {from, ' +
      'to}}`; credentials and keys appear only as "set"). Writes of the order, webhook, license and ' +
      'subscription routes are recorded as `"<METHOD> <route>"` with the request they made. Filters ' +
      '`resource_type`, `resource_id`, ' +
      `\`action\`. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: auditQuery },
    responses: { 200: merchantOk('One page of events.', pageOf(AuditEvent)) },
    handler: async (ctx, { query }) => {
      const { page, per_page, ...filters } = query;
      return pageBody(await listAudit(ctx.deps.knex, ctx.state.store!.id, filters, { page, per_page }));
    },
  }),
];
