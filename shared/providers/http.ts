import { ProviderRejectedError, ProviderUnavailableError } from './types';

export interface ProviderRequest {
  provider: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}

export interface ProviderResponse {
  status: number;
  body: unknown;
}

/** The provider's own explanation of a refusal, whatever shape its error body has; never echoes a request. */
function describeError(body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const nested =
      record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : null;
    const message = record.message ?? nested?.message;
    const type = record.type ?? nested?.type;
    if (typeof message === 'string') return typeof type === 'string' ? `${type}: ${message}` : message;
  }
  return 'no error description';
}

/**
 * One JSON call to a provider's API with a client timeout. Classifies failures the way the payments jobs
 * act on them: a timeout, a network error, a 5xx or a 429 may succeed later (ProviderUnavailableError,
 * retried with back-off); any other 4xx never will (ProviderRejectedError). Credentials travel only in
 * the headers given and never appear in an error message.
 */
export async function providerRequest(req: ProviderRequest): Promise<ProviderResponse> {
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.method,
      headers: {
        Accept: 'application/json',
        ...(req.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...req.headers,
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(req.timeoutMs),
    });
  } catch (err) {
    const name = (err as Error).name;
    const reason =
      name === 'TimeoutError' || name === 'AbortError'
        ? `no answer within ${req.timeoutMs} ms`
        : `could not be reached (${(err as Error).message})`;
    throw new ProviderUnavailableError(req.provider, `${req.method} ${new URL(req.url).pathname} ${reason}`);
  }

  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new ProviderUnavailableError(req.provider, `answer cut off (${(err as Error).message})`);
  }
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }

  const where = `${req.method} ${new URL(req.url).pathname}`;
  if (res.status >= 500 || res.status === 429) {
    throw new ProviderUnavailableError(req.provider, `${where} answered ${res.status}`);
  }
  if (res.status >= 400) {
    throw new ProviderRejectedError(
      req.provider,
      `${where} answered ${res.status}: ${describeError(body)}`,
      res.status,
    );
  }
  if (body === null) {
    // A 2xx without a JSON body is a provider fault that a later attempt may not repeat.
    throw new ProviderUnavailableError(req.provider, `${where} answered ${res.status} without a JSON body`);
  }
  return { status: res.status, body };
}
