import crypto from 'node:crypto';
import type { AppMiddleware } from '../context';
import { interfaceFor } from '../interfaces';

const INCOMING_ID = /^[A-Za-z0-9._:-]{8,100}$/;

/** Gives every request an id (the caller's X-Request-Id when well-formed) and names its interface. */
export function requestId(): AppMiddleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.interface = interfaceFor(ctx.path);
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
