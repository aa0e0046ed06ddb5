import type Router from '@koa/router';
import { interfaceFor, InterfaceName } from './interfaces';

/** The client-facing interfaces, in the order the start banner and the README list them. */
export const CLIENT_INTERFACES = ['embed', 'storefront', 'merchant', 'license', 'fivem'] as const;
export type ClientInterface = (typeof CLIENT_INTERFACES)[number];

/**
 * The client-facing interfaces that have at least one route in `routers` (what `createApp` mounts), so
 * the start banner lists what answers and nothing else: an interface appears there the moment its routes
 * are mounted. The Storefront's analytics routes count as the Storefront.
 */
export function mountedInterfaces(routers: readonly Router[]): ClientInterface[] {
  const found = new Set<InterfaceName>();
  for (const router of routers) {
    for (const layer of router.stack) {
      if (layer.methods.length === 0) continue; // router.use() middleware, not a route
      const name = interfaceFor(String(layer.path));
      found.add(name === 'analytics' ? 'storefront' : name);
    }
  }
  return CLIENT_INTERFACES.filter((name) => found.has(name));
}
