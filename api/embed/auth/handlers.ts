import { otpServiceFor } from '../../../shared/services/otp/factory';
import { validateSessionForProduct } from '../../../shared/services/customers/session';
import { AppContext, input, respond } from '../../context';
import type { CompleteBody, ResendBody, StartBody, ValidateBody, VerifyBody } from './schemas';

/** The store comes from the embed-key guard; every handler below runs behind it. */
const store = (ctx: AppContext) => ctx.state.store!;

export async function start(ctx: AppContext): Promise<void> {
  const { body } = input<StartBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).start(store(ctx), 'embed', body, ctx.ip));
}

export async function resend(ctx: AppContext): Promise<void> {
  const { body } = input<ResendBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).resend(store(ctx), 'embed', body.session_token, ctx.ip));
}

export async function verify(ctx: AppContext): Promise<void> {
  const { body } = input<VerifyBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).verify(store(ctx), 'embed', body.session_token, body.code));
}

export async function complete(ctx: AppContext): Promise<void> {
  const { body } = input<CompleteBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).complete(store(ctx), 'embed', body));
}

export async function validateToken(ctx: AppContext): Promise<void> {
  const { body } = input<ValidateBody>(ctx);
  respond(ctx, await validateSessionForProduct(ctx.state.customer!, body.product_id));
}
