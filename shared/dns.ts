import { Resolver } from 'node:dns/promises';

/**
 * A DNS TXT lookup: the records of `name`, each as the character strings it is made of (the shape of
 * node:dns/promises `resolveTxt`). Store domain verification (shared/services/stores/domains.ts) looks
 * records up through `deps.resolveTxt`, so tests give a resolver of their own and never query real DNS.
 */
export type TxtResolver = (name: string) => Promise<string[][]>;

/** The system's resolvers, bounded: a lookup gives up after two tries of 3 s each. */
export function systemTxtResolver(): TxtResolver {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  return (name) => resolver.resolveTxt(name);
}
