import { jsonResponse, NO_CREDENTIALS, ref } from '../components';
import type { OpenApiFragment } from '../types';

/** CONTRACT section 6: development routes, absent when NODE_ENV=production. */
export const dev: OpenApiFragment = {
  tag: {
    name: 'Dev',
    description:
      'Development routes. They do not exist when NODE_ENV=production (every such request is a 404).',
  },
  paths: {
    '/__dev/outbox': {
      get: {
        tags: ['Dev'],
        summary: 'Messages sent by the outbox driver',
        description:
          'What the `outbox` messaging driver "sent" to one number, newest first (at most 100). An OTP body ' +
          'holds the code as its only run of exactly 4 digits. Absent in production.',
        operationId: 'getDevOutbox',
        security: NO_CREDENTIALS,
        parameters: [
          {
            name: 'to',
            in: 'query',
            required: true,
            description: 'Country code and number, digits only.',
            schema: { type: 'string', pattern: '^\\d{6,20}$' },
            example: '966500000001',
          },
        ],
        responses: {
          '200': jsonResponse(
            'The messages.',
            {
              type: 'object',
              required: ['messages'],
              properties: {
                messages: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['to', 'channel', 'body', 'created_at'],
                    properties: {
                      to: { type: 'string' },
                      channel: { type: 'string', examples: ['whatsapp', 'sms'] },
                      body: { type: ['string', 'null'] },
                      created_at: { type: 'string', format: 'date-time' },
                    },
                  },
                },
              },
            },
            {
              messages: [
                {
                  to: '966500000001',
                  channel: 'whatsapp',
                  body: 'Your code is 4821',
                  created_at: '2026-01-01T12:00:00.000Z',
                },
              ],
            },
          ),
          '422': ref('responses', 'PlatformError'),
        },
      },
    },
  },
};
