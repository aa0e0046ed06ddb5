import type { Route } from './http/route';
import { interfaceFor, InterfaceName } from './interfaces';

/** The client-facing interfaces, in the order the start banner and the README list them. */
export const CLIENT_INTERFACES = ['embed', 'storefront', 'merchant', 'license', 'fivem'] as const;
export type ClientInterface = (typeof CLIENT_INTERFACES)[number];

/**
 * The client-facing interfaces that have at least one route in `routes` (`allRoutes`: what `createApp` mounts), so
 * the start banner lists what answers and nothing else: an interface appears there the moment its routes
 * are mounted. The Storefront's analytics routes count as the Storefront.
 */
export function mountedInterfaces(routes: readonly Pick<Route, 'path'>[]): ClientInterface[] {
  const found = new Set<InterfaceName>();
  for (const route of routes) {
    const name = interfaceFor(route.path);
    found.add(name === 'analytics' ? 'storefront' : name);
  }
  return CLIENT_INTERFACES.filter((name) => found.has(name));
}
