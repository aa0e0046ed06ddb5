import Joi from 'joi';

export const noQuery = Joi.object({})
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });
