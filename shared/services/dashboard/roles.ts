import type { StoreRole } from '../../../db/models';

/**
 * What each role in a store may do in the dashboard. Owners do everything; managers everything but
 * staff; support sees orders and customers and moves an order forward (confirm, complete), but changes
 * no setting or product and never cancels or refunds.
 */
export type Permission =
  | 'orders.view'
  | 'orders.advance'
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

export function can(role: StoreRole, permission: Permission): boolean {
  return GRANTS[role].has(permission);
}

/** The permission an order status move needs: 5 cancels, 6 refunds, anything else moves it forward. */
export function permissionForStatus(target: number): Permission {
  if (target === 6) return 'orders.refund';
  if (target === 5) return 'orders.cancel';
  return 'orders.advance';
}
