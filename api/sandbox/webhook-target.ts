import type { AppContext } from '../context';

/**
 * Where the sandbox delivers webhooks. SANDBOX_WEBHOOK_URL when set; otherwise this web process itself, at
 * the address and port the request arrived on. Posting to PUBLIC_BASE_URL instead would fail wherever that
 * name does not reach the app from inside (tests: http://localhost:3999 with the server on another port;
 * behind a proxy without hairpin routing), while the socket's own address always does.
 */
export function sandboxWebhookTarget(ctx: AppContext): string {
  const configured = ctx.deps.config.payments.sandboxWebhookUrl;
  if (configured) return configured;
  const socket = ctx.req.socket;
  const raw = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = raw.includes(':') ? `[${raw}]` : raw;
  return `http://${host}:${socket.localPort ?? ctx.deps.config.port}/webhooks/sandbox`;
}
