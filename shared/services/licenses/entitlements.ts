import Joi from 'joi';

/**
 * A plan's entitlements: named features the software unlocks, as the merchant sets them on the plan
 * (`product_plans.features`), listed in every /verify answer and certificate. A value is a switch (true or
 * false), a number (a limit such as `max_projects`) or a short string (a tier name).
 */
export type Entitlements = Record<string, boolean | number | string>;

/** At most this many features per plan, keeping every answer and certificate small. */
export const MAX_ENTITLEMENTS = 50;

/** Feature names: lower case letters, digits and underscores, starting with a letter, at most 64 characters. */
export const ENTITLEMENT_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export const entitlementsSchema = (): Joi.ObjectSchema<Entitlements> =>
  Joi.object<Entitlements>()
    .pattern(
      // Every key is matched here (so none is stripped as unknown); names are checked below.
      Joi.string(),
      Joi.alternatives().try(
        Joi.boolean().strict(),
        Joi.number().integer().min(-2_147_483_648).max(2_147_483_647).strict(),
        Joi.string().max(100),
      ),
    )
    .max(MAX_ENTITLEMENTS)
    .custom((value: Entitlements, helpers) => {
      const bad = Object.keys(value).find((name) => !ENTITLEMENT_NAME.test(name));
      return bad === undefined ? value : helpers.error('entitlements.name', { name: bad });
    })
    .messages({
      'entitlements.name':
        '{{#label}}: "{{#name}}" is not a feature name (lower case letters, digits and _, at most 64)',
    })
    .description(
      'Named features of the plan, e.g. {"pro_export": true, "max_projects": 10}: a switch, a whole number ' +
        'or a short string each.',
    );
