import net from 'node:net';
import { hmacSha256 } from '../../crypto';
import type { LockType } from '../../../db/models';

/** Longest hardware id accepted (characters); longer input is refused as invalid, never truncated. */
export const MAX_HWID_LENGTH = 256;

/**
 * How an activation's hardware id or IP address is kept: an HMAC under the platform secret, so the value
 * itself is never stored but the same value always finds its row (a lookup a salted hash could not do).
 * The lock type is part of the input, so a hwid that happens to look like an IP is another identifier.
 */
export function identifierHash(
  appSecret: string,
  lockType: Exclude<LockType, 'none'>,
  value: string,
): string {
  return hmacSha256(appSecret, `license-activation:${lockType}:${value}`);
}

/**
 * The identifier's hash under every secret the process holds, the current one (APP_SECRET) first, then
 * each of APP_SECRET_PREVIOUS: an activation recorded before a rotation is still found (docs/security.md,
 * "Rotating APP_SECRET"). The value itself is never kept, so these hashes cannot be re-keyed by
 * `secrets:rotate`; verify re-keys a row when its machine next verifies.
 */
export function identifierHashes(
  secrets: { appSecret: string; appSecretPrevious?: readonly string[] },
  lockType: Exclude<LockType, 'none'>,
  value: string,
): string[] {
  return [secrets.appSecret, ...(secrets.appSecretPrevious ?? [])].map((secret) =>
    identifierHash(secret, lockType, value),
  );
}

/** The last characters of the value (the last IPv4 octet or IPv6 group), for the merchant's list. */
export function identifierHint(lockType: Exclude<LockType, 'none'>, value: string): string {
  if (lockType === 'ip') {
    const parts = value.split(/[.:]/);
    return `…${parts[parts.length - 1] ?? ''}`.slice(0, 16);
  }
  return `…${value.slice(-4)}`;
}

/** One spelling per address: an IPv4 client seen through an IPv6 socket (::ffff:1.2.3.4) is 1.2.3.4. */
export function normalizeIp(ip: string): string {
  const trimmed = ip.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  if (mapped && net.isIPv4(mapped[1]!)) return mapped[1]!;
  return net.isIPv6(trimmed) ? trimmed.toLowerCase() : trimmed;
}
