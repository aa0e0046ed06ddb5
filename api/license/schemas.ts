import Joi from 'joi';
import { MAX_HWID_LENGTH } from '../../shared/services/licenses/identifiers';
import { NONCE_PATTERN } from '../../shared/services/licenses/answer';

/** No control characters (Unicode category Cc): a hwid is an opaque printable string. */
const PRINTABLE = /^\P{Cc}*$/u;

export const verifyBody = Joi.object({
  product_id: Joi.number().integer().positive().max(2_147_483_647).required(),
  license_key: Joi.string().trim().min(1).max(100).pattern(PRINTABLE).required(),
  hwid: Joi.string().trim().max(MAX_HWID_LENGTH).pattern(PRINTABLE).allow('', null),
  nonce: Joi.string().trim().pattern(NONCE_PATTERN).messages({
    'string.pattern.base': 'nonce must be 1 to 128 visible ASCII characters',
  }),
});
export interface VerifyBody {
  product_id: number;
  license_key: string;
  hwid?: string | null;
  nonce?: string;
}
