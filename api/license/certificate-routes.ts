import { CERTIFICATE_MAX_DAYS, issueCertificate } from '../../shared/services/licenses/certificate';
import { localeFrom } from '../../shared/services/licenses/labels';
import { licenseGuards } from '../guards';
import { defineRoute } from '../http/route';
import { object, schemaRef } from '../openapi/components';
import { licenseAnswer as licenseAnswerDoc } from '../openapi/license-schemas';
import { licenseAnswer } from './answer';
import { EXAMPLE_RESULT, refusal, signedStandard, verifyBody } from './routes';

/** The key and hwid exactly as the client sent them (before trimming): what the certificate is bound to. */
export function asSent(body: unknown): { key: string; hwid: string | null } {
  const raw = (body ?? {}) as Record<string, unknown>;
  return {
    key: typeof raw.license_key === 'string' ? raw.license_key : '',
    hwid: typeof raw.hwid === 'string' ? raw.hwid : null,
  };
}

const EXAMPLE_CERTIFICATE =
  'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6IjVhMWM5ZTdiM2YwMjQ2ZDgifQ.eyJwcm9kdWN0X2lkIjoxMn0.c2lnbmF0dXJl';

export const licenseCertificateRoutes = [
  defineRoute({
    method: 'post',
    path: '/verify/certificate',
    interface: 'license',
    operationId: 'licenseCertificate',
    summary: 'Issue an offline license certificate',
    description:
      'Takes the `/verify` body and, when `/verify` would answer with a result, answers `data.certificate`: ' +
      'a JWS compact serialization (RFC 7515), header `{"alg":"EdDSA","typ":"JWT","kid"}`, signed with the ' +
      'Ed25519 key of `GET /verify/public-key` (the key named by `kid`), so the software checks it with the ' +
      'published key and no network. Claims: `product_id`, `license_key_sha256` (lowercase hex SHA-256 of ' +
      'the key as sent), `hwid` (as sent, or null; null under an `ip` lock), `ip` (the activated address ' +
      'under an `ip` lock, else null), `seat` (a floating license: `{id, generation}` of the seat it leases, ' +
      'else null), `status`, `lock_type`, `iat` and `exp` (Unix seconds; ' +
      `\`exp\` at most ${CERTIFICATE_MAX_DAYS} days after \`iat\` and never after the license's expiry), ` +
      '`license_expires_at`, `not_before` (void the certificate when a later `/verify` answer carries a larger ' +
      'one) and `entitlements`. It activates a new hwid exactly as `/verify` does and is refused exactly as ' +
      '`/verify` refuses (same statuses and error codes). The answer itself is signed, and encrypted for a ' +
      'product that encrypts, like every License answer. docs/license.md, "Offline certificates".',
    guards: (deps) => [licenseAnswer(), ...licenseGuards(deps)],
    request: {
      body: verifyBody,
      example: {
        product_id: 12,
        license_key: 'DEMO-7K2M-Q9XP-4HTW-8RJN',
        hwid: 'B7F3-99A1-PC',
        nonce: '3f9c0d2e',
      },
    },
    responses: {
      200: licenseAnswerDoc(
        'The certificate, with the license result it was issued for.',
        object({
          success: { const: true },
          data: object({
            certificate: {
              type: 'string',
              description: 'JWS compact serialization: header.payload.signature.',
            },
            key_id: { type: 'string', description: 'The `kid` of the signing key.' },
            issued_at: { type: 'string', format: 'date-time', description: '`iat`, ISO 8601.' },
            expires_at: { type: 'string', format: 'date-time', description: '`exp`, ISO 8601.' },
            claims: object({
              product_id: { type: 'integer' },
              license_key_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              hwid: { type: ['string', 'null'] },
              ip: { type: ['string', 'null'] },
              seat: {
                oneOf: [
                  { type: 'null' },
                  object({ id: { type: 'integer' }, generation: { type: 'integer' } }),
                ],
              },
              status: { type: 'string', enum: ['active', 'grace'] },
              lock_type: { type: 'string', enum: ['none', 'hwid', 'ip'] },
              iat: { type: 'integer' },
              exp: { type: 'integer' },
              checkin_days: { type: 'integer' },
              license_expires_at: { type: ['integer', 'null'] },
              not_before: { type: 'integer' },
              entitlements: { type: 'object' },
            }),
            license: schemaRef('LicenseResult'),
          }),
          nonce: { type: ['string', 'null'] },
          timestamp: { type: 'integer' },
        }),
        {
          success: true,
          data: {
            certificate: EXAMPLE_CERTIFICATE,
            key_id: '5a1c9e7b3f0246d8',
            issued_at: '2026-11-24T00:00:00.000Z',
            expires_at: '2026-12-24T00:00:00.000Z',
            claims: {
              product_id: 12,
              license_key_sha256: 'd0698dcec83d37de1d009b4f29e7a5fba77a24d3e294fe76df92a141fa8a175f',
              hwid: 'B7F3-99A1-PC',
              ip: null,
              seat: null,
              status: 'active',
              lock_type: 'hwid',
              iat: 1795478400,
              exp: 1798070400,
              checkin_days: 0,
              license_expires_at: 1893456000,
              not_before: 0,
              entitlements: { pro_export: true, max_projects: 10 },
            },
            license: EXAMPLE_RESULT,
          },
          nonce: '3f9c0d2e',
          timestamp: 1795478400,
        },
      ),
      400: refusal(
        '`HWID_REQUIRED`: a hwid lock and no hwid.',
        'HWID_REQUIRED',
        'A hardware id (hwid) is required for this license',
      ),
      403: refusal(
        '`LICENSE_EXPIRED`, `LICENSE_SUSPENDED`, `LICENSE_REVOKED`, `LICENSE_NOT_ACTIVE` or ' +
          '`ACTIVATION_LIMIT_REACHED`, as `/verify`.',
        'LICENSE_REVOKED',
        'License has been revoked',
      ),
      404: refusal('`LICENSE_NOT_FOUND`, as `/verify`.', 'LICENSE_NOT_FOUND', 'License not found'),
      ...signedStandard,
    },
    handler: (ctx, { body }) => {
      const sent = asSent(ctx.request.body);
      return issueCertificate(ctx.deps, {
        productId: body.product_id,
        licenseKey: body.license_key,
        hwid: body.hwid,
        ip: ctx.ip,
        locale: localeFrom(ctx.get('Accept-Language')),
        licenseKeyAsSent: sent.key,
        hwidAsSent: sent.hwid,
      });
    },
  }),
];
