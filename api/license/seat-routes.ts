import Joi from 'joi';
import { localeFrom } from '../../shared/services/licenses/labels';
import { heartbeat } from '../../shared/services/licenses/seats';
import { licenseGuards } from '../guards';
import { defineRoute } from '../http/route';
import { object, schemaRef } from '../openapi/components';
import { licenseAnswer as licenseAnswerDoc } from '../openapi/license-schemas';
import { licenseAnswer } from './answer';
import { refusal, signedStandard, verifyBody, type VerifyBody } from './routes';

const heartbeatBody = (verifyBody as Joi.ObjectSchema).keys({
  release: Joi.boolean().description('true: give the seat back now (the program is closing).'),
}) as Joi.ObjectSchema<VerifyBody & { release?: boolean }>;

export const licenseSeatRoutes = [
  defineRoute({
    method: 'post',
    path: '/verify/heartbeat',
    interface: 'license',
    operationId: 'licenseHeartbeat',
    summary: 'Take or keep a floating seat',
    description:
      'For a product whose license policy is `floating`: the machine named by `hwid` takes a seat (one of ' +
      'the license’s `max_activations`, 0 = unlimited) or keeps the one it has, until `seat.expires_at` ' +
      '(`heartbeat_seconds` after this beat). Beat again by `seat.next_heartbeat_at`; a machine that stops ' +
      'beating loses its seat after the interval, and another machine can take it. `release: true` gives ' +
      'the seat back at once. No seat free: 403 `ACTIVATION_LIMIT_REACHED`. The license is checked as by ' +
      '`/verify` (same refusals); a product that is not floating: 400. Signed (and encrypted) like every ' +
      'License answer.',
    guards: (deps) => [licenseAnswer(), ...licenseGuards(deps)],
    request: {
      body: heartbeatBody,
      example: { product_id: 12, license_key: 'DEMO-7K2M-Q9XP-4HTW-8RJN', hwid: 'B7F3-99A1-PC', nonce: 'a1' },
    },
    responses: {
      200: licenseAnswerDoc(
        'The seat is held (or released), with the license result.',
        object({
          success: { const: true },
          data: {
            allOf: [
              schemaRef('LicenseResult'),
              object({
                seat: object({
                  held: { type: 'boolean' },
                  expires_at: { type: ['string', 'null'], format: 'date-time' },
                  next_heartbeat_at: { type: ['string', 'null'], format: 'date-time' },
                  heartbeat_seconds: { type: 'integer' },
                  used: { type: 'integer', description: 'Live seats of the license.' },
                  max: { type: 'integer', description: '0: unlimited.' },
                }),
              }),
            ],
          },
          nonce: { type: ['string', 'null'] },
          timestamp: { type: 'integer' },
        }),
      ),
      400: refusal(
        '`HWID_REQUIRED`, or `INVALID_REQUEST`: the product is not floating.',
        'HWID_REQUIRED',
        'A hardware id (hwid) is required for this license',
      ),
      403: refusal(
        '`ACTIVATION_LIMIT_REACHED`: every seat is held; or the license’s state, as `/verify`.',
        'ACTIVATION_LIMIT_REACHED',
        'Activation limit reached for this license',
      ),
      404: refusal('`LICENSE_NOT_FOUND`.', 'LICENSE_NOT_FOUND', 'License not found'),
      ...signedStandard,
    },
    handler: (ctx, { body }) =>
      heartbeat(ctx.deps, {
        productId: body.product_id,
        licenseKey: body.license_key,
        hwid: body.hwid,
        ip: ctx.ip,
        locale: localeFrom(ctx.get('Accept-Language')),
        release: body.release ?? false,
      }),
  }),
];
