import { CLIENT_INTERFACES, ClientInterface } from '../mounted';
import { INTERFACES, interfaceFor } from '../interfaces';
import { defineRoute, Route } from '../http/route';
import { jsonResponse } from '../openapi/components';
import type { SchemaObject } from '../openapi/types';

/** Where each client interface begins: the address the start banner and the README print for it. */
const BASES: Record<ClientInterface, string> = {
  embed: '/api/embed',
  storefront: '/api',
  merchant: '/shawarma',
  license: '/verify',
  fivem: '/api/fivem',
};

const INDEX_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['interface', 'docs', 'openapi', 'routes'],
  properties: {
    interface: { type: 'string' },
    description: { type: 'string' },
    docs: { type: 'string', description: 'The interactive API reference, opened at this interface.' },
    openapi: { type: 'string', description: 'The OpenAPI document of every interface.' },
    routes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['method', 'path', 'summary'],
        properties: {
          method: { type: 'string' },
          path: { type: 'string' },
          summary: { type: 'string' },
        },
      },
    },
  },
};

/**
 * An index at each client interface's base address: its name, where its reference is, and each of its
 * operations (method, path, summary), read from the same route list the app mounts. A developer who
 * opens the address the banner printed finds the way in, instead of a 404. Public: it says nothing the
 * OpenAPI document does not.
 */
export function interfaceIndexRoutes(routes: readonly Route[]): Route[] {
  return CLIENT_INTERFACES.flatMap((name) => {
    const own = routes
      .filter((route) => {
        const of = interfaceFor(route.path);
        return (of === 'analytics' ? 'storefront' : of) === name && !route.anyMethod;
      })
      .map((route) => ({ method: route.method.toUpperCase(), path: route.path, summary: route.summary }));
    if (own.length === 0) return [];
    const tag = INTERFACES[name].tag;
    const base = BASES[name];
    const example = {
      interface: tag.name,
      description: tag.description,
      docs: `/docs#/${encodeURIComponent(tag.name)}`,
      openapi: '/openapi.json',
      routes: own,
    };
    return [
      defineRoute({
        method: 'get',
        path: base,
        interface: name,
        operationId: `get${tag.name.replace(/\W/g, '')}Index`,
        summary: `${tag.name}: index of its operations`,
        description:
          'What answers at this interface: each operation with its method, path and summary, and where ' +
          'the full reference is. Needs no credentials.',
        security: [],
        omitStandard: [401, 403, 404, 429],
        responses: { 200: jsonResponse('The interface’s operations.', INDEX_SCHEMA, example) },
        handler: (ctx) => {
          ctx.status = 200;
          ctx.body = example;
          return undefined;
        },
      }),
    ];
  });
}
