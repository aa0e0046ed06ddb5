import type { StoreRole } from '../../../db/models';

/**
 * What each role in a store may do in the dashboard. Owners do everything; managers everything but
 * staff; support sees orders and customers and moves a paid order forward (in progress, complete), but
 * changes no setting or product, never cancels or refunds, and confirms no payment unless an owner
 * granted it.
 *
 * `orders.confirm_payment`: saying a bank transfer or manual PayPal payment arrived, or marking an unpaid
 * order paid (Awaiting payment or Under review to In progress or Completed). It releases the goods, so it
 * is the owner's to hand out: owners and managers have it, a support member only when an owner grants it
 * on the staff page (store_members.grants; off by default).
 */
export type Permission =
  | 'orders.view'
  | 'orders.advance'
  | 'orders.confirm_payment'
  | 'orders.cancel'
  | 'orders.refund'
  | 'customers.view'
  | 'products.edit'
  | 'settings.edit'
  | 'staff.manage'
  | 'licenses.manage'
  | 'reviews.moderate';

const GRANTS: Readonly<Record<StoreRole, ReadonlySet<Permission>>> = {
  owner: new Set<Permission>([
    'orders.view',
    'orders.advance',
    'orders.confirm_payment',
    'orders.cancel',
    'orders.refund',
    'customers.view',
    'products.edit',
    'settings.edit',
    'staff.manage',
    'licenses.manage',
    'reviews.moderate',
  ]),
  manager: new Set<Permission>([
    'orders.view',
    'orders.advance',
    'orders.confirm_payment',
    'orders.cancel',
    'orders.refund',
    'customers.view',
    'products.edit',
    'settings.edit',
    'licenses.manage',
    'reviews.moderate',
  ]),
  support: new Set<Permission>(['orders.view', 'orders.advance', 'customers.view']),
};

/** Permissions an owner may grant a member on top of their role (store_members.grants). */
export const GRANTABLE: readonly Permission[] = ['orders.confirm_payment'];

/** What a member may do: their role's permissions and the ones an owner granted them. */
export function can(role: StoreRole, permission: Permission, grants: readonly string[] = []): boolean {
  return GRANTS[role].has(permission) || (GRANTABLE.includes(permission) && grants.includes(permission));
}

/**
 * The permission an order status move needs: 5 cancels, 6 refunds; to In progress or Completed from
 * Awaiting payment or Under review confirms a payment (the goods go out); anything else moves it forward.
 * Statuses only move forward (shared/services/orders/lifecycle.ts), so an order seen past Under review
 * cannot be back in it when the move runs.
 */
export function permissionForStatus(target: number, from: number): Permission {
  if (target === 6) return 'orders.refund';
  if (target === 5) return 'orders.cancel';
  if ((target === 3 || target === 4) && (from === 1 || from === 2)) return 'orders.confirm_payment';
  return 'orders.advance';
}
