import { AsyncLocalStorage } from 'node:async_hooks';
import { DependencyUnavailableError } from './dependency-errors';

/**
 * The time budget of the HTTP request being served, carried through async calls so that services can
 * refuse to START work (reserve stock, open a payment, enqueue an OTP) for a request whose client has
 * gone or that has waited too long on a slow dependency. Outside a request (workers, scripts) there is no
 * budget and every check passes.
 */
interface RequestScope {
  readonly deadline: number;
  /** True once the client closed its connection. */
  readonly clientGone: () => boolean;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` (the rest of the middleware chain) under a request budget of `budgetMs` from now. */
export function withRequestDeadline<T>(budgetMs: number, clientGone: () => boolean, fn: () => T): T {
  return storage.run({ deadline: Date.now() + budgetMs, clientGone }, fn);
}

/**
 * Throws (503 with Retry-After) when the current request may no longer start work: its budget is spent
 * or its client disconnected. Call it right before a side effect; a no-op outside requests.
 */
export function assertRequestMayStartWork(): void {
  const scope = storage.getStore();
  if (!scope) return;
  if (scope.clientGone()) {
    throw new DependencyUnavailableError('request', 'The client closed the request; nothing was started.');
  }
  if (Date.now() > scope.deadline) {
    throw new DependencyUnavailableError(
      'request',
      'The request took too long; nothing was started. Please try again.',
    );
  }
}
