import { localeFrom } from '../../shared/services/licenses/labels';
import { signingKeys } from '../../shared/services/licenses/signing';
import { verifyLicense } from '../../shared/services/licenses/verify';
import { AppContext, input, respond } from '../context';
import type { VerifyBody } from './schemas';

export async function verify(ctx: AppContext): Promise<void> {
  const { body } = input<VerifyBody>(ctx);
  respond(
    ctx,
    await verifyLicense(ctx.deps, {
      productId: body.product_id,
      licenseKey: body.license_key,
      hwid: body.hwid,
      ip: ctx.ip,
      locale: localeFrom(ctx.get('Accept-Language')),
    }),
  );
}

export async function publicKey(ctx: AppContext): Promise<void> {
  const keys = await signingKeys(ctx.deps);
  respond(ctx, {
    algorithm: 'Ed25519',
    key_id: keys.keyId,
    public_key: keys.publicKeyBase64,
    public_key_pem: keys.publicKeyPem,
  });
}
