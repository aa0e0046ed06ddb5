import crypto from 'node:crypto';
import type { AppMiddleware } from '../context';
import { interfaceFor } from '../interfaces';

const INCOMING_ID = /^[A-Za-z0-9._:-]{8,100}$/;

/** Gives every request an id (the caller's X-Request-Id when well-formed) and names its interface. */
export function requestId(): AppMiddleware {
  // Not `async`: a layer that only passes on returns next()'s promise instead of wrapping it in another.
  return (ctx, next) => {
    const incoming = ctx.req.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = id;
    ctx.state.interface = interfaceFor(ctx.path);
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}
