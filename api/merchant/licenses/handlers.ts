import {
  listProductLicenses,
  reactivateLicense,
  resetActivations,
  showLicense,
  suspendLicense,
  type LicenseListQuery,
  type ResetActivationsInput,
} from '../../../shared/services/licenses/merchant';
import { AppContext, input, respond } from '../../context';

type ProductParams = { productId: number };
type LicenseParams = { licenseId: number };

export async function list(ctx: AppContext): Promise<void> {
  const { params, query } = input<unknown, LicenseListQuery, ProductParams>(ctx);
  respond(ctx, await listProductLicenses(ctx.deps, ctx.state.store!.id, params.productId, query));
}

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, LicenseParams>(ctx);
  respond(ctx, await showLicense(ctx.deps, ctx.state.store!.id, params.licenseId));
}

export async function suspend(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, LicenseParams>(ctx);
  respond(ctx, await suspendLicense(ctx.deps, ctx.state.store!.id, params.licenseId), {
    message: 'License suspended',
  });
}

export async function reactivate(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, LicenseParams>(ctx);
  respond(ctx, await reactivateLicense(ctx.deps, ctx.state.store!.id, params.licenseId), {
    message: 'License reactivated',
  });
}

export async function reset(ctx: AppContext): Promise<void> {
  const { params, body } = input<ResetActivationsInput, unknown, LicenseParams>(ctx);
  respond(ctx, await resetActivations(ctx.deps, ctx.state.store!.id, params.licenseId, body), {
    message: 'Activations reset',
  });
}
