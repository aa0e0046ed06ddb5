import Joi from 'joi';
import { NONCE_PATTERN } from '../../shared/services/licenses/answer';
import { MAX_HWID_LENGTH } from '../../shared/services/licenses/identifiers';
import { localeFrom } from '../../shared/services/licenses/labels';
import {
  SELF_RESET_QUOTA,
  SELF_RESET_WINDOW_DAYS,
  selfResetActivations,
  type SelfResetRequest,
} from '../../shared/services/licenses/self-reset';
import { publishedKeys } from '../../shared/services/licenses/key-rotation';
import { signingKeys } from '../../shared/services/licenses/signing';
import { verifyLicense } from '../../shared/services/licenses/verify';
import { licenseGuards } from '../guards';
import { id } from '../http/fields';
import { defineRoute } from '../http/route';
import { jsonResponse, object, schemaRef } from '../openapi/components';
import { licenseAnswer as licenseAnswerDoc } from '../openapi/license-schemas';
import { licenseAnswer } from './answer';

/**
 * No control characters (Unicode category Cc, exactly U+0000–U+001F and U+007F–U+009F): a hwid is an
 * opaque printable string. Written as a range rather than `\P{Cc}` so the document's `pattern` means the
 * same to every JSON Schema validator, with or without Unicode regular expressions.
 */
// eslint-disable-next-line no-control-regex
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]*$/;

const licenseKey = (): Joi.StringSchema<string> =>
  Joi.string()
    .trim()
    .min(1)
    .max(100)
    .pattern(PRINTABLE)
    .description('The key, PREFIX-XXXX-XXXX-XXXX-XXXX; case and surrounding spaces do not matter.');

const nonce = (): Joi.StringSchema<string> =>
  Joi.string()
    .trim()
    .pattern(NONCE_PATTERN)
    .messages({ 'string.pattern.base': 'nonce must be 1 to 128 visible ASCII characters' })
    .description('Echoed in the answer with a server timestamp, so a replayed answer shows.');

export interface VerifyBody {
  product_id: number;
  license_key: string;
  hwid?: string | null;
  nonce?: string;
}

export const verifyBody = Joi.object<VerifyBody, true>({
  product_id: id().required(),
  license_key: licenseKey().required(),
  hwid: Joi.string()
    .trim()
    .max(MAX_HWID_LENGTH)
    .pattern(PRINTABLE)
    .allow('', null)
    .description('Hardware id: required by hwid locks, ignored otherwise. Stored only as an HMAC.'),
  nonce: nonce(),
});

type ResetBody = Pick<SelfResetRequest, 'hwid'> & { product_id: number; license_key: string; nonce?: string };

const resetBody = Joi.object<ResetBody, true>({
  product_id: id().required(),
  license_key: licenseKey().required(),
  hwid: Joi.string()
    .trim()
    .max(MAX_HWID_LENGTH)
    .pattern(PRINTABLE)
    .allow('', null)
    .description('The hardware id (on an IP-locked license, the address) to free; absent: every activation.'),
  nonce: nonce(),
});

const EXAMPLE_BINDING = {
  product_id: 12,
  license_key_sha256: 'd0698dcec83d37de1d009b4f29e7a5fba77a24d3e294fe76df92a141fa8a175f',
  hwid: 'B7F3-99A1-PC',
};

/** A license result as `/verify` answers it (and a certificate carries it), for the docs. */
export const EXAMPLE_RESULT = {
  status: 'active',
  lock_type: 'hwid',
  product: { id: 12, name: 'Toolkit Pro License' },
  plan: {
    duration: 'yearly',
    duration_label: 'Yearly',
    start_date: '01-01-2026',
    end_date: '01-01-2030',
    is_active: true,
  },
  expires_at: '2030-01-01T00:00:00.000Z',
  expires_in_days: 1135,
  activations: { current: 1, max: 2, remaining: 1 },
  metadata: null,
  entitlements: { pro_export: true, max_projects: 10 },
  not_before: 0,
  grace_ends_at: null,
  checkin_days: 0,
};

/** Answers every /verify route declares besides its own: the signed 429 and 503. */
export const signedStandard = { 429: 'LicenseRateLimited', 503: 'LicenseUnavailable' } as const;

export const refusal = (
  description: string,
  code: string,
  message: string,
): ReturnType<typeof licenseAnswerDoc> =>
  licenseAnswerDoc(description, schemaRef('LicenseError'), {
    success: false,
    message,
    error_code: code,
    request: EXAMPLE_BINDING,
    nonce: '3f9c0d2e',
    timestamp: 1795444800,
  });

export const licenseRoutes = [
  defineRoute({
    method: 'post',
    path: '/verify',
    interface: 'license',
    operationId: 'licenseVerify',
    summary: 'Verify a license key',
    description:
      'Checks a key for a product and, under a `hwid` or `ip` lock, activates a new hardware id or address ' +
      'while activations remain (the database decides: 20 simultaneous new hwids against max 2 activate ' +
      'exactly 2). Every answer (errors, 422 and 429 included) is signed: `X-Signature` is an Ed25519 ' +
      'signature over the exact body, verifiable with the key of `GET /verify/public-key`; the body carries ' +
      'the request’s `nonce` and a server `timestamp`. When the product encrypts its answers, every answer but ' +
      'the 429 is `{"encrypted":true,"alg":"AES-256-GCM","iv","tag","data"}` (base64; fresh 96-bit IV) under ' +
      'the product’s key. A key of another product answers exactly like an unknown key. Layout, examples and ' +
      'error codes: docs/license.md.',
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
      ...signedStandard,
      200: licenseAnswerDoc('The license verifies.', schemaRef('LicenseSuccess'), {
        success: true,
        data: EXAMPLE_RESULT,
        request: EXAMPLE_BINDING,
        nonce: '3f9c0d2e',
        timestamp: 1795444800,
      }),
      400: refusal(
        '`HWID_REQUIRED`: a hwid lock and no hwid; `INVALID_REQUEST`: the body is not JSON (unsigned).',
        'HWID_REQUIRED',
        'A hardware id (hwid) is required for this license',
      ),
      403: refusal(
        '`LICENSE_EXPIRED`, `LICENSE_SUSPENDED`, `LICENSE_REVOKED`, `LICENSE_NOT_ACTIVE` (generated, order not ' +
          'completed) or `ACTIVATION_LIMIT_REACHED`.',
        'LICENSE_REVOKED',
        'License has been revoked',
      ),
      404: refusal(
        '`LICENSE_NOT_FOUND`: no such key for this product (also a key of another product).',
        'LICENSE_NOT_FOUND',
        'License not found',
      ),
    },
    handler: (ctx, { body }) =>
      verifyLicense(ctx.deps, {
        productId: body.product_id,
        licenseKey: body.license_key,
        hwid: body.hwid,
        ip: ctx.ip,
        locale: localeFrom(ctx.get('Accept-Language')),
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/verify/reset',
    interface: 'license',
    operationId: 'licenseSelfReset',
    summary: 'Free activations (customer self-service)',
    description:
      `Whoever holds an active key frees its activations (one \`hwid\`, or all) to move to another machine, ` +
      `at most ${SELF_RESET_QUOTA} times per ${SELF_RESET_WINDOW_DAYS} days per license unless the merchant set ` +
      'another limit for the product (`reset_limit` per `reset_window_days`) (a reset that removes ' +
      'nothing uses none). The same states are refused as by verify; a license without a lock is a 400. ' +
      'Answers are signed and, for a product that encrypts, encrypted, exactly like verify’s.',
    guards: (deps) => [licenseAnswer(), ...licenseGuards(deps)],
    request: {
      body: resetBody,
      example: { product_id: 12, license_key: 'DEMO-7K2M-Q9XP-4HTW-8RJN', hwid: 'B7F3-99A1-PC' },
    },
    responses: {
      ...signedStandard,
      200: licenseAnswerDoc(
        'Activations freed.',
        object({
          success: { const: true },
          data: object({
            removed: { type: 'integer' },
            activations: object({
              current: { type: 'integer' },
              max: { type: 'integer' },
              remaining: { type: 'integer', minimum: 0, description: '0 when max is 0 (unlimited).' },
            }),
            resets: object({
              used: { type: 'integer', description: 'Resets used in the current window.' },
              limit: { type: 'integer' },
              window_days: { type: 'integer' },
              next_reset_at: { type: ['string', 'null'], format: 'date-time' },
            }),
          }),
          request: schemaRef('LicenseRequestBinding'),
          nonce: { type: ['string', 'null'] },
          timestamp: { type: 'integer' },
        }),
      ),
      400: refusal(
        'The license has no lock (`INVALID_REQUEST`).',
        'INVALID_REQUEST',
        'This license is not locked',
      ),
      403: refusal(
        '`RESET_LIMIT_REACHED` (with `next_reset_at`), or the license’s state (as verify).',
        'RESET_LIMIT_REACHED',
        'No activation resets left for now',
      ),
      404: refusal('`LICENSE_NOT_FOUND`.', 'LICENSE_NOT_FOUND', 'License not found'),
    },
    handler: (ctx, { body }) =>
      selfResetActivations(ctx.deps, {
        productId: body.product_id,
        licenseKey: body.license_key,
        hwid: body.hwid,
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/verify/public-key',
    interface: 'license',
    operationId: 'licensePublicKey',
    summary: 'The key that signs verify answers',
    description:
      'The platform’s Ed25519 public key: raw 32 bytes in base64 and as PEM (SPKI), and in `keys` every ' +
      'valid key by `kid` (also as a JWK) for checking offline certificates. Made once per deployment and ' +
      'kept; pin it in the software rather than fetching it at run time.',
    guards: licenseGuards,
    responses: {
      200: jsonResponse(
        'The public key.',
        object({
          success: { const: true },
          data: object({
            algorithm: { const: 'Ed25519' },
            key_id: { type: 'string', description: 'First 16 hex digits of SHA-256 over the raw key.' },
            public_key: { type: 'string', description: 'Raw 32-byte key, base64.' },
            public_key_pem: { type: 'string' },
            keys: {
              type: 'array',
              description:
                'Every key whose signatures are valid, by `kid` (the `kid` of a certificate’s header, the ' +
                '`X-Signature-Key-Id` of an answer); the current key first, then keys rotated out within the ' +
                'last 31 days (their certificates may still be valid).',
              items: object({
                kid: { type: 'string' },
                algorithm: { const: 'Ed25519' },
                public_key: { type: 'string', description: 'Raw 32-byte key, base64.' },
                public_key_pem: { type: 'string' },
                jwk: object({
                  kty: { const: 'OKP' },
                  crv: { const: 'Ed25519' },
                  x: { type: 'string', description: 'Raw key, base64url (RFC 8037).' },
                  kid: { type: 'string' },
                  alg: { const: 'EdDSA' },
                  use: { const: 'sig' },
                }),
                retired_at: {
                  type: ['string', 'null'],
                  format: 'date-time',
                  description:
                    'When the key was rotated out (still valid for its certificates); null: current.',
                },
              }),
            },
          }),
        }),
      ),
    },
    handler: async (ctx) => {
      await signingKeys(ctx.deps); // made on first use
      const keys = await publishedKeys(ctx.deps);
      const current = keys[0]!;
      return {
        algorithm: 'Ed25519',
        key_id: current.kid,
        public_key: current.public_key,
        public_key_pem: current.public_key_pem,
        keys,
      };
    },
  }),
];
