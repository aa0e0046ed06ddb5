import { NotFoundError } from '../../errors';
import { noteLicensesChanged } from './cache';
import type { Entitlements } from './entitlements';
import type { MerchantLicenseDeps } from './merchant';

/** A plan's entitlements as the Merchant API shows them. */
export interface PlanEntitlements {
  plan_id: number;
  product_id: number;
  name: string;
  duration: string;
  entitlements: Entitlements;
}

async function findPlan(
  deps: MerchantLicenseDeps,
  storeId: number,
  productId: number,
  planId: number,
): Promise<PlanEntitlements> {
  const row = await deps
    .knex('product_plans as pl')
    .join('products as p', 'p.id', 'pl.product_id')
    .where({ 'pl.id': planId, 'pl.product_id': productId, 'p.store_id': storeId })
    .first<
      { id: number; product_id: number; name: string; duration: string; features: Entitlements } | undefined
    >('pl.id', 'pl.product_id', 'pl.name', 'pl.duration', 'pl.features');
  if (!row) throw new NotFoundError('Plan not found');
  return {
    plan_id: row.id,
    product_id: row.product_id,
    name: row.name,
    duration: row.duration,
    entitlements: row.features,
  };
}

/** The plan's entitlements; a plan of another product or store is not found. */
export function showPlanEntitlements(
  deps: MerchantLicenseDeps,
  storeId: number,
  productId: number,
  planId: number,
): Promise<PlanEntitlements> {
  return findPlan(deps, storeId, productId, planId);
}

/**
 * Replaces the plan's entitlements (validated by entitlementsSchema). Every license of the plan answers
 * them at its next /verify: the verify cache counters move after the update (all licenses: an edit of a
 * plan is rare, and which keys hold the plan is not worth a read).
 */
export async function replacePlanEntitlements(
  deps: MerchantLicenseDeps,
  storeId: number,
  productId: number,
  planId: number,
  entitlements: Entitlements,
): Promise<PlanEntitlements> {
  await findPlan(deps, storeId, productId, planId);
  await deps
    .knex('product_plans')
    .where({ id: planId, product_id: productId })
    .update({ features: JSON.stringify(entitlements), updated_at: new Date() });
  await noteLicensesChanged(deps);
  return findPlan(deps, storeId, productId, planId);
}
