import Joi from 'joi';

const id = Joi.number().integer().positive().max(2_147_483_647);

export const productParams = Joi.object({ productId: id.required() });
export const licenseParams = Joi.object({ licenseId: id.required() });

/** CONTRACT section 8: merchant lists take `page` and `per_page`, 15 by default. */
export const listQuery = Joi.object({
  page: Joi.number().integer().min(1).max(100_000).default(1),
  per_page: Joi.number().integer().min(1).max(100).default(15),
  status: Joi.string().valid('generated', 'active', 'expired', 'suspended', 'revoked'),
});

export const resetBody = Joi.object({
  hwid: Joi.string().trim().min(1).max(256),
  activation_id: id,
}).oxor('hwid', 'activation_id');
