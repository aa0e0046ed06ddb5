import { otpServiceFor } from '../../../shared/services/otp/factory';
import { AppContext, input, respond } from '../../context';
import type { CompleteBody, ResendBody, StartBody, VerifyBody } from './schemas';

/** The store comes from the storefront store resolver (Host / Origin); every handler runs behind it. */
const store = (ctx: AppContext) => ctx.state.store!;

export async function start(ctx: AppContext): Promise<void> {
  const { body } = input<StartBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).start(store(ctx), 'storefront', body, ctx.ip));
}

export async function resend(ctx: AppContext): Promise<void> {
  const { body } = input<ResendBody>(ctx);
  const result = await otpServiceFor(ctx.deps).resend(store(ctx), 'storefront', body.session_token, ctx.ip);
  respond(ctx, { resend_cooldown: result.resend_cooldown }, { message: result.message });
}

export async function verify(ctx: AppContext): Promise<void> {
  const { body } = input<VerifyBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).verify(store(ctx), 'storefront', body.session_token, body.code));
}

export async function complete(ctx: AppContext): Promise<void> {
  const { body } = input<CompleteBody>(ctx);
  respond(ctx, await otpServiceFor(ctx.deps).complete(store(ctx), 'storefront', body));
}
