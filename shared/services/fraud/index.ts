import type { Knex } from 'knex';
import type { Logger } from '../../logger';
import { CheckoutBlockedError, recordRefusal, ScreenContext, screenBuyer, isScreened } from './screen';
import type { FraudSettings } from './settings';

export { CHECKOUT_BLOCKED, CheckoutBlockedError } from './screen';
export { fraudSettingsOf, fraudSettingsSchema, fraudSettingsView, writeFraudSettings } from './settings';
export type { FraudSettings, FraudSettingsPatch, FraudSettingsView } from './settings';

/**
 * The block lists of a checkout about to be opened (fraud/screen.ts): the store's fraud settings for the
 * limits that follow, or null for a checkout no buyer opens (renewals). A refusal is recorded, then thrown.
 */
export async function screenCheckoutBuyer(
  deps: { knex: Knex; logger: Logger },
  ctx: ScreenContext,
): Promise<FraudSettings | null> {
  if (!isScreened(ctx.source)) return null;
  try {
    return await screenBuyer(deps.knex, ctx);
  } catch (err) {
    if (err instanceof CheckoutBlockedError) await recordRefusal(deps.knex, ctx, err.refusal, deps.logger);
    throw err;
  }
}
