import { UnrecoverableError } from 'bullmq';
import { Order, OrderItem, Product } from '../../db/models';
import { expireLicenses } from '../../shared/services/maintenance';
import { generateItemLicenses } from '../../shared/services/licenses';
import type { QueueProcessor } from './types';

/**
 * The `licenses` queue: key generation for one order item (fulfilment does the same inline; this serves an
 * operator regenerating a missing key) and expiry before a given time. Both are safe to run twice.
 */
export const licensesProcessor: QueueProcessor<'licenses'> = {
  concurrency: 5,
  async process(job, deps) {
    const data = job.data;
    if (data.kind === 'expire') return expireLicenses(deps.knex, new Date(data.before));
    const item = await OrderItem.query(deps.knex).findById(data.orderItemId);
    const order = item ? await Order.query(deps.knex).findById(item.order_id) : undefined;
    const product = item?.product_id ? await Product.query(deps.knex).findById(item.product_id) : undefined;
    if (!item || !order || !product)
      throw new UnrecoverableError(`order item ${data.orderItemId} cannot be licensed`);
    if (!product.license_enabled) return { generated: 0 };
    return { generated: await generateItemLicenses(deps.knex, order, item, product) };
  },
};
