import Joi from 'joi';
import { fraudSettingsKeys, type FraudSettingsPatch } from '../fraud/settings';
import { growthSettingsKeys, type GrowthSettings } from '../growth/settings';

/**
 * The store's `settings` object, one schema for PATCH /shawarma/store, the dashboard and the fixture: the
 * fraud controls' keys (docs/fraud.md) and growth's (docs/growth.md). Each area writes its own keys and
 * ignores the others'.
 */
export type StoreSettingsKeys = FraudSettingsPatch & GrowthSettings;

export const storeSettingsSchema = Joi.object<StoreSettingsKeys>({
  ...fraudSettingsKeys,
  ...growthSettingsKeys,
}).messages({ 'object.unknown': '{{#label}} is not a store setting' });
