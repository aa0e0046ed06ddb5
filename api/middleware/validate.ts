import type Joi from 'joi';
import { FieldErrors, messagesOf, ValidationError } from '../../shared/errors';
import type { AppContext, AppMiddleware } from '../context';
import { BAIL, compileSchema, JOI_OPTIONS } from './compiled-validator';

export interface RequestSchemas {
  body?: Joi.Schema;
  query?: Joi.Schema;
  params?: Joi.Schema;
}

const OPTIONS = JOI_OPTIONS;

/** Maps Joi's details to `{field: [messages]}`, the shape of every 422 on the platform. */
export function fieldErrors(error: Joi.ValidationError): FieldErrors {
  const out: FieldErrors = {};
  for (const detail of error.details) {
    const key = detail.path.length > 0 ? detail.path.join('.') : String(detail.context?.key ?? 'body');
    messagesOf(out, key).push(detail.message);
  }
  return out;
}

export function check<T>(schema: Joi.Schema, value: unknown): T {
  const { error, value: out } = schema.validate(value ?? {}, OPTIONS);
  if (error) throw new ValidationError(fieldErrors(error));
  return out as T;
}

/**
 * Validates body, query and path parameters before the handler runs, reporting every bad field at once.
 * The validated (converted) values land in ctx.state.body / query / params. A plainly valid value is
 * checked by the schema's compiled fast path (compiled-validator.ts); anything else by Joi itself.
 */
export function validate(schemas: RequestSchemas): AppMiddleware {
  const parts = (['params', 'query', 'body'] as const).flatMap((part) => {
    const schema = schemas[part];
    return schema ? [{ part, schema, fast: compileSchema(schema) }] : [];
  });
  return async (ctx: AppContext, next) => {
    const errors: FieldErrors = {};
    for (const { part, schema, fast } of parts) {
      const raw =
        part === 'body'
          ? ctx.request.body
          : part === 'query'
            ? ctx.query
            : (ctx as unknown as { params: unknown }).params;
      const quick = fast ? fast(raw ?? {}) : BAIL;
      if (quick !== BAIL) {
        ctx.state[part] = quick;
        continue;
      }
      const { error, value } = schema.validate(raw ?? {}, OPTIONS);
      if (error) Object.assign(errors, fieldErrors(error));
      else ctx.state[part] = value;
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await next();
  };
}
