/**
 * The five interfaces share one port and are told apart by path prefix. The error handler and the 404
 * handler use this to answer in the right envelope even when no router matched.
 */
export type InterfaceName =
  'embed' | 'storefront' | 'analytics' | 'merchant' | 'license' | 'fivem' | 'platform';

const PREFIXES: ReadonlyArray<[string, InterfaceName]> = [
  ['/api/embed', 'embed'],
  ['/api/storefront/analytics', 'analytics'],
  ['/api/fivem', 'fivem'],
  ['/api', 'storefront'],
  ['/shawarma', 'merchant'],
  ['/verify', 'license'],
];

export function interfaceFor(path: string): InterfaceName {
  for (const [prefix, name] of PREFIXES) {
    if (path === prefix || path.startsWith(prefix + '/')) return name;
  }
  return 'platform';
}
