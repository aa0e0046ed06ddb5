import type { AppMiddleware } from '../../../context';

/** A key upload may be this large: 10,000 keys of up to 500 characters, with line ends and the form. */
export const MAX_FORM_BYTES = 6 * 1024 * 1024;

/**
 * multipart/form-data for the dashboard's key upload (the app's body parser leaves multipart alone). The
 * body, at most 6 MB, is read into memory and parsed by the platform's own FormData reader (undici, part of
 * Node): text parts become the form fields, a file part its UTF-8 text under the same name. The session
 * guard runs it (`signedIn(..., { readBody })`) only after the session, role and origin are checked, then
 * checks the form token it carries. A body too large or not parseable leaves the form empty: the guard
 * then refuses it for its missing token (403 page).
 */
export function dashboardMultipart(): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !ctx.is('multipart/form-data')) return next();
    const declared = Number(ctx.get('content-length'));
    const fields: Record<string, string> = {};
    if (!(Number.isFinite(declared) && declared > MAX_FORM_BYTES)) {
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      for await (const chunk of ctx.req) {
        size += (chunk as Buffer).length;
        if (size > MAX_FORM_BYTES) tooLarge = true;
        else chunks.push(chunk as Buffer);
      }
      if (!tooLarge) {
        try {
          const form = await new Request('http://dashboard.invalid/', {
            method: 'POST',
            headers: { 'content-type': ctx.get('content-type') },
            body: Buffer.concat(chunks),
          }).formData();
          for (const [name, value] of form.entries()) {
            if (typeof value === 'string') fields[name] = value;
            else fields[name] = new TextDecoder('utf-8').decode(await value.arrayBuffer());
          }
        } catch {
          // A malformed body: no fields, refused below by the form token check.
        }
      }
    } else {
      ctx.req.resume();
    }
    ctx.request.body = fields;
    await next();
  };
}
