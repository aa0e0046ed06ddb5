import { jsonResponse, NO_CREDENTIALS, ref, schemaRef } from '../components';
import type { OpenApiFragment } from '../types';

/** Operational routes of every instance: health, metrics, the API docs and the queue dashboard. */
export const platform: OpenApiFragment = {
  tag: {
    name: 'Platform',
    description: 'Health checks, Prometheus metrics, this documentation and the queue dashboard.',
  },
  paths: {
    '/healthz': {
      get: {
        tags: ['Platform'],
        summary: 'Liveness',
        description: 'Answers as soon as the process serves HTTP; checks no dependency.',
        operationId: 'getHealthz',
        security: NO_CREDENTIALS,
        responses: {
          '200': jsonResponse(
            'The process is up.',
            { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
            { status: 'ok' },
          ),
        },
      },
    },
    '/readyz': {
      get: {
        tags: ['Platform'],
        summary: 'Readiness',
        description:
          'Checks that this instance reaches Postgres and Redis; a load balancer sends traffic only on 200.',
        operationId: 'getReadyz',
        security: NO_CREDENTIALS,
        responses: {
          '200': jsonResponse('Both dependencies answer.', schemaRef('Readiness'), {
            status: 'ok',
            checks: { postgres: 'ok', redis: 'ok' },
          }),
          '503': jsonResponse('A dependency is unreachable.', schemaRef('Readiness'), {
            status: 'unavailable',
            checks: { postgres: 'ok', redis: 'unreachable' },
          }),
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['Platform'],
        summary: 'Prometheus metrics',
        description:
          'HTTP request counts and latency histograms, process figures, and per queue the waiting, active, ' +
          'delayed and failed job counts (the figure worker autoscaling reads).',
        operationId: 'getMetrics',
        security: NO_CREDENTIALS,
        responses: {
          '200': {
            description: 'Prometheus text exposition format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['Platform'],
        summary: 'This OpenAPI document',
        operationId: 'getOpenApiDocument',
        security: NO_CREDENTIALS,
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document of every route the API serves.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/docs': {
      get: {
        tags: ['Platform'],
        summary: 'API documentation page',
        description: 'Swagger UI rendering /openapi.json, served with its assets from this server (no CDN).',
        operationId: 'getDocs',
        security: NO_CREDENTIALS,
        responses: {
          '200': { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
    '/docs/assets/{file}': {
      get: {
        tags: ['Platform'],
        summary: 'Asset of the documentation page',
        operationId: 'getDocsAsset',
        security: NO_CREDENTIALS,
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            description: 'One of the Swagger UI files the page loads.',
            schema: { type: 'string', examples: ['swagger-ui.css'] },
          },
        ],
        responses: {
          '200': {
            description: 'The file (JavaScript, CSS or image).',
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          '404': ref('responses', 'PlatformError'),
        },
      },
    },
    '/admin/queues': {
      get: {
        tags: ['Platform'],
        summary: 'Queue dashboard',
        description:
          'bull-board UI over every queue: inspect jobs and retry failed ones. Everything below this path ' +
          '(the UI’s static files and its own JSON API) sits behind the same basic auth; with no ' +
          'DASHBOARD_USER/DASHBOARD_PASSWORD configured it always answers 401.',
        operationId: 'getQueueDashboard',
        security: [{ DashboardBasic: [] }],
        responses: {
          '200': {
            description: 'The dashboard (HTML).',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '401': {
            description: 'Missing or wrong credentials (`WWW-Authenticate: Basic`).',
            content: { 'application/json': { schema: schemaRef('PlatformError') } },
          },
        },
      },
    },
  },
  schemas: {
    Readiness: {
      type: 'object',
      required: ['status', 'checks'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unavailable'] },
        checks: {
          type: 'object',
          required: ['postgres', 'redis'],
          properties: {
            postgres: { type: 'string', enum: ['ok', 'unreachable'] },
            redis: { type: 'string', enum: ['ok', 'unreachable'] },
          },
        },
      },
    },
  },
};
