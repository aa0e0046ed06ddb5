import { expect } from 'chai';
import { koaPathOf } from '../../api/http/mount';
import { interfaceFor } from '../../api/interfaces';
import { allRoutes } from '../../api/routes';

/**
 * The app mounts one router per interface and picks it by the interface the path names
 * (api/http/mount.ts): a route whose path named another interface than the one it declares would never
 * be reached.
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
