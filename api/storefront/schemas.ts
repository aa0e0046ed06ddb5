import Joi from 'joi';

/** Pieces the Storefront's schemas share. */
export const id = Joi.number().integer().positive().max(2_147_483_647);
export const page = Joi.number().integer().min(1).max(100_000).default(1);
export const perPage = (fallback: number) => Joi.number().integer().min(1).max(100).default(fallback);
/** `true`/`false`, `1`/`0` in a query string. */
export const flag = Joi.boolean().truthy('1').falsy('0');
