import Router from '@koa/router';
import { expect } from 'chai';
import { koaPathOf, planSections } from '../../api/http/mount';
import { interfaceFor } from '../../api/interfaces';
import { allRoutes } from '../../api/routes';

/**
 * Errors, 404s and 405s answer in the envelope of the interface the path names (api/interfaces.ts): a route
 * whose path named another interface than the one it declares would answer its refusals in the wrong one.
 */
describe('every route is mounted under the interface its path names', () => {
  for (const config of [
    { nodeEnv: 'development' as const, sandboxEnabled: true },
    { nodeEnv: 'production' as const, sandboxEnabled: false },
  ]) {
    it(`in ${config.nodeEnv}`, () => {
      const routes = allRoutes(config);
      expect(routes.length).to.be.greaterThan(50);
      const misplaced = routes
        .map((route) => ({ route, path: route.koaPath ?? koaPathOf(route.path) }))
        .filter(({ route, path }) => interfaceFor(path) !== route.interface)
        .map(
          ({ route, path }) =>
            `${route.method} ${path}: declared ${route.interface}, path ${interfaceFor(path)}`,
        );
      expect(misplaced).to.deep.equal([]);
    });
  }
});

/**
 * Each request is matched against the routes of its path section only (api/http/mount.ts). Whatever one
 * router over every route would match for a path (the routes, in their order, and so the handler that
 * answers and the methods a 405 names), the section's router must match too.
 */
describe('a path section holds every route that could match its paths', () => {
  const routes = allRoutes({ nodeEnv: 'development', sandboxEnabled: true });
  const patterns = routes.map((route) => route.koaPath ?? koaPathOf(route.path));
  const everything = new Router();
  patterns.forEach((pattern, i) => everything.all(pattern, () => i));
  const plan = planSections(patterns);
  const groups = plan.all();
  // Paths a request could name: each pattern with its parameters filled in, also with a trailing slash,
  // in capitals, one segment longer, and paths of no route.
  const filled = patterns.map((p) => p.replace(/:(\w+)(\([^)]*\))?/g, 'x1').replace(/\(\.\*\)/g, '/deep/er'));
  const paths = [
    ...filled,
    ...filled.map((p) => `${p}/`),
    ...filled.map((p) => p.toUpperCase()),
    ...filled.map((p) => `${p}/more`),
    '/',
    '/nothing/here',
    '//healthz',
    '*',
  ];

  it('matches what one router over all routes matches, in the same order', () => {
    expect(routes.length).to.be.greaterThan(100);
    const wrong: string[] = [];
    let matchedSomething = 0;
    for (const path of paths) {
      // (`all` may register a pattern once per method: each pattern counts once.)
      const want = [
        ...new Set(everything.match(path, 'GET').path.map((layer) => patterns.indexOf(layer.path as string))),
      ];
      if (want.length > 0) matchedSomething += 1;
      const key = plan.keyFor(path);
      const candidates = key === undefined ? [] : groups.get(key)!;
      const got = candidates.filter((i) => want.includes(i));
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${path}: ${want} != ${got}`);
    }
    expect(wrong).to.deep.equal([]);
    // The filled-in patterns and their trailing-slash and capital forms match their own routes.
    expect(matchedSomething).to.be.at.least(filled.length * 3);
  });

  it('keeps each section small: /healthz is matched against one route, the Merchant orders against a few', () => {
    expect(groups.get(plan.keyFor('/healthz')!)).to.have.length(1);
    expect(groups.get(plan.keyFor('/shawarma/orders/12')!)!.length).to.be.below(10);
    expect(Math.max(...[...groups.values()].map((g) => g.length))).to.be.below(30);
  });
});
