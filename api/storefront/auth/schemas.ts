import Joi from 'joi';
import { countryCode, phone } from '../../embed/auth/schemas';

/** Storefront sign-in starts from the store itself, not from a product. Other bodies match the Embed API. */
export const startBody = Joi.object({ country_code: countryCode, phone });
export interface StartBody {
  country_code: string;
  phone: string;
}

export { resendBody, verifyBody, completeBody } from '../../embed/auth/schemas';
export type { ResendBody, VerifyBody, CompleteBody } from '../../embed/auth/schemas';
