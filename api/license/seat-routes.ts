import Joi from 'joi';
import { readPresentedCertificate } from '../../shared/services/licenses/certificate-check';
import { localeFrom } from '../../shared/services/licenses/labels';
import { heartbeat } from '../../shared/services/licenses/seats';
import { licenseGuards } from '../guards';
import { defineRoute } from '../http/route';
import { object, schemaRef } from '../openapi/components';
import { licenseAnswer as licenseAnswerDoc } from '../openapi/license-schemas';
import { licenseAnswer } from './answer';
import { asSent } from './certificate-routes';
import { refusal, signedStandard, verifyBody, type VerifyBody } from './routes';

const heartbeatBody = (verifyBody as Joi.ObjectSchema).keys({
  release: Joi.boolean().description('true: give the seat back now (the program is closing).'),
  certificate: Joi.string()
    .max(8192)
    .pattern(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/)
    .description(
      'The offline certificate the machine holds (JWS compact): refused with `CERTIFICATE_VOID` unless ' +
        'its `seat` claim is the seat this machine holds now, at its current generation.',
    ),
}) as Joi.ObjectSchema<VerifyBody & { release?: boolean; certificate?: string }>;

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
      'the seat back at once, except that a seat a certificate leases stays taken until the certificate ' +
      'ends (`seat.expires_at`). `certificate`: the one the machine holds, checked against its seat. ' +
      'No seat free: 403 `ACTIVATION_LIMIT_REACHED`. The license is checked as by ' +
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
                  id: {
                    type: ['integer', 'null'],
                    description: 'The seat, as a certificate’s `seat.id` names it; null once freed.',
                  },
                  generation: {
                    type: ['integer', 'null'],
                    description: 'Moves with each certificate minted for the seat and each release.',
                  },
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
        '`ACTIVATION_LIMIT_REACHED`: every seat is held (a released seat whose certificate has not ended ' +
          'included); `CERTIFICATE_VOID`: the certificate handed in is not this seat’s current one; or the ' +
          'license’s state, as `/verify`.',
        'ACTIVATION_LIMIT_REACHED',
        'Activation limit reached for this license',
      ),
      404: refusal('`LICENSE_NOT_FOUND`.', 'LICENSE_NOT_FOUND', 'License not found'),
      ...signedStandard,
    },
    handler: async (ctx, { body }) => {
      const now = new Date();
      const sent = asSent(ctx.request.body);
      const certificate = body.certificate
        ? await readPresentedCertificate(
            ctx.deps,
            body.certificate,
            { productId: body.product_id, licenseKeyAsSent: sent.key, hwidAsSent: sent.hwid },
            now,
          )
        : null;
      return heartbeat(ctx.deps, {
        productId: body.product_id,
        licenseKey: body.license_key,
        hwid: body.hwid,
        ip: ctx.ip,
        locale: localeFrom(ctx.get('Accept-Language')),
        release: body.release ?? false,
        certificate,
        now,
      });
    },
  }),
];
