/**
 * Matjar license client for Node (TypeScript, no dependencies: node:crypto, node:fs and the global fetch of
 * Node 18+). It does every check a License answer needs, so software calling it cannot get them wrong:
 *
 * - a fresh random `nonce` per request, which the answer must echo, and a server `timestamp` within
 *   `maxSkewSeconds` of the local clock (a replayed answer fails both);
 * - the Ed25519 `X-Signature` over the exact body, with a key pinned in the software (by `kid`);
 * - the `request` binding: an answer naming another product, key or hwid is refused (relayed answers);
 * - AES-256-GCM decryption for a product that encrypts (and refusal of a plain answer where an encrypted
 *   one is expected, except the 429/503 that are never encrypted);
 * - offline certificates: fetched, checked (signature, binding, `exp`, `not_before`), cached on disk with
 *   their expiry, and used when the platform cannot be reached;
 * - floating seats: heartbeats at the time each answer names, each handing in the cached certificate
 *   (a certificate whose seat was released or re-certified is refused, `CERTIFICATE_VOID`, and dropped),
 *   and the seat given back on stop, with the certificate dropped along with it;
 * - an ip-locked license's certificate names no machine (`hwid` null, the activated `ip`).
 *
 * Every failure is a LicenseClientError with a `code`: the platform's `error_code` (LICENSE_EXPIRED, ...)
 * or one of the client's own (see ClientErrorCode).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type ClientErrorCode =
  | 'NETWORK'
  | 'BAD_SIGNATURE'
  | 'UNKNOWN_KEY'
  | 'WRONG_REQUEST'
  | 'REPLAYED'
  | 'NOT_ENCRYPTED'
  | 'DECRYPTION_FAILED'
  | 'BAD_ANSWER'
  | 'NO_CERTIFICATE'
  | 'CERTIFICATE_INVALID'
  | 'CERTIFICATE_EXPIRED'
  | 'CERTIFICATE_REVOKED';

export class LicenseClientError extends Error {
  /** A ClientErrorCode, or the platform's `error_code` (LICENSE_REVOKED, ACTIVATION_LIMIT_REACHED, ...). */
  readonly code: string;
  /** The HTTP status of a platform refusal; null for the client's own checks. */
  readonly status: number | null;
  constructor(code: string, message: string, status: number | null = null) {
    super(`${code}: ${message}`);
    this.name = 'LicenseClientError';
    this.code = code;
    this.status = status;
  }
}

export interface LicenseClientOptions {
  /** The platform's address, e.g. https://shop.example.com */
  baseUrl: string;
  productId: number;
  licenseKey: string;
  /** This machine's hardware id; required by hwid locks and floating seats. */
  hwid?: string | null;
  /** Pinned public keys (PEM, SPKI) by kid, from GET /verify/public-key `keys`. */
  publicKeys: Record<string, string>;
  /** The product's AES-256-GCM key (base64) when the product encrypts its answers. */
  encryptionKey?: string | null;
  /** Where the offline certificate is cached (JSON); none: no offline use. */
  certificateFile?: string | null;
  /** Largest accepted difference between the server's timestamp and the local clock. Default 300 s. */
  maxSkewSeconds?: number;
  /**
   * Accept answers without a `request` binding (a platform older than the binding). Default false: an
   * unbound answer is refused.
   */
  allowUnbound?: boolean;
  /** Per request; default 10 s. */
  timeoutMs?: number;
  /** For tests: the clock. */
  now?: () => number;
}

export interface LicenseResult {
  status: 'active' | 'grace';
  lock_type: string;
  expires_at: string | null;
  grace_ends_at?: string | null;
  entitlements?: Record<string, boolean | number | string>;
  not_before?: number;
  activations: { current: number; max: number; remaining: number | null };
  [field: string]: unknown;
}

export interface CertificateClaims {
  product_id: number;
  license_key_sha256: string;
  hwid: string | null;
  /** Under an `ip` lock: the activated address (and `hwid` is null). */
  ip?: string | null;
  /** A floating license: the seat the certificate leases, at the generation it holds. */
  seat?: { id: number; generation: number } | null;
  lock_type?: string;
  status: string;
  iat: number;
  exp: number;
  not_before: number;
  entitlements: Record<string, boolean | number | string>;
  [claim: string]: unknown;
}

export interface HeartbeatAnswer extends LicenseResult {
  seat: {
    held: boolean;
    next_heartbeat_at: string | null;
    /** The seat and its generation, as a certificate's `seat` claim names them; null once freed. */
    id: number | null;
    generation: number | null;
  };
}

export interface CheckResult {
  /** true: the platform answered now; false: the cached certificate decided (offline). */
  online: boolean;
  status: string;
  entitlements: Record<string, boolean | number | string>;
  /** The /verify result when online. */
  license: LicenseResult | null;
  /** The certificate's claims (online: the fresh or cached one; offline: the cached one). */
  certificate: CertificateClaims | null;
}

interface CacheFile {
  certificate: string | null;
  expires_at: number | null;
  /** The largest `not_before` seen online: certificates issued before it are void. */
  not_before_seen: number;
}

const sha256 = (value: string): string => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

export class LicenseClient {
  private readonly opts: Required<
    Omit<LicenseClientOptions, 'hwid' | 'encryptionKey' | 'certificateFile'>
  > & { hwid: string | null; encryptionKey: Buffer | null; certificateFile: string | null };
  private readonly keys: Map<string, crypto.KeyObject>;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: LicenseClientOptions) {
    this.opts = {
      maxSkewSeconds: 300,
      allowUnbound: false,
      timeoutMs: 10_000,
      now: () => Date.now(),
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      hwid: options.hwid ?? null,
      encryptionKey: options.encryptionKey ? Buffer.from(options.encryptionKey, 'base64') : null,
      certificateFile: options.certificateFile ?? null,
    };
    if (this.opts.encryptionKey && this.opts.encryptionKey.length !== 32)
      throw new LicenseClientError('BAD_ANSWER', 'the encryption key must be 32 bytes (base64)');
    this.keys = new Map(
      Object.entries(options.publicKeys).map(([kid, pem]) => [kid, crypto.createPublicKey(pem)]),
    );
    if (this.keys.size === 0) throw new LicenseClientError('UNKNOWN_KEY', 'pin at least one public key');
  }

  /** POST /verify: the license result, every check done. */
  async verify(): Promise<LicenseResult> {
    const license = (await this.call('/verify')) as LicenseResult;
    if (typeof license.not_before === 'number') this.noteNotBefore(license.not_before);
    return license;
  }

  /** POST /verify/certificate: a fresh certificate, checked and cached on disk. */
  async renewCertificate(): Promise<CertificateClaims> {
    const data = (await this.call('/verify/certificate')) as { certificate?: unknown };
    if (typeof data.certificate !== 'string') throw new LicenseClientError('BAD_ANSWER', 'no certificate');
    const claims = this.checkCertificate(data.certificate, this.readCache().not_before_seen);
    this.writeCache({ ...this.readCache(), certificate: data.certificate, expires_at: claims.exp });
    return claims;
  }

  /** The cached certificate, checked offline (signature, binding, expiry, not_before); throws when unusable. */
  checkOffline(): CertificateClaims {
    const cache = this.readCache();
    if (!cache.certificate)
      throw new LicenseClientError('NO_CERTIFICATE', 'no certificate cached: go online once');
    return this.checkCertificate(cache.certificate, cache.not_before_seen);
  }

  /**
   * What software calls at start: online, /verify (and a certificate renewed once half its life is gone);
   * the platform unreachable, the cached certificate. A refusal (revoked, expired, ...) drops the cached
   * certificate and throws.
   */
  async check(): Promise<CheckResult> {
    let license: LicenseResult;
    try {
      license = await this.verify();
    } catch (err) {
      const unreachable =
        err instanceof LicenseClientError &&
        (err.code === 'NETWORK' || err.status === 503 || err.status === 429);
      if (!unreachable) {
        if (err instanceof LicenseClientError && err.status !== null) this.dropCertificate();
        throw err;
      }
      const claims = this.checkOffline();
      return {
        online: false,
        status: claims.status,
        entitlements: claims.entitlements,
        license: null,
        certificate: claims,
      };
    }
    let claims: CertificateClaims | null = null;
    if (this.opts.certificateFile) {
      try {
        claims = this.checkOffline();
        const nowS = this.opts.now() / 1000;
        if (nowS > claims.iat + (claims.exp - claims.iat) / 2) claims = await this.renewCertificate();
      } catch (err) {
        if (!(err instanceof LicenseClientError) || err.status !== null) throw err;
        claims = await this.renewCertificate();
      }
    }
    return {
      online: true,
      status: license.status,
      entitlements: license.entitlements ?? {},
      license,
      certificate: claims,
    };
  }

  /**
   * POST /verify/heartbeat once: takes or keeps this machine's floating seat, handing in the cached
   * certificate so the platform checks it against the seat. A certificate the platform calls void (its seat
   * was released or certified again) is dropped, and the beat goes on without it. A release drops the
   * cached certificate too: it is handed back with the seat.
   */
  async heartbeat(release = false): Promise<HeartbeatAnswer> {
    const extra: Record<string, unknown> = release ? { release: true } : {};
    const cached = this.readCache().certificate;
    let answer: HeartbeatAnswer;
    try {
      answer = (await this.call(
        '/verify/heartbeat',
        cached ? { ...extra, certificate: cached } : extra,
      )) as HeartbeatAnswer;
    } catch (err) {
      if (!(cached && err instanceof LicenseClientError && err.code === 'CERTIFICATE_VOID')) throw err;
      this.dropCertificate();
      answer = (await this.call('/verify/heartbeat', extra)) as HeartbeatAnswer;
    }
    if (release) this.dropCertificate();
    return answer;
  }

  /**
   * Beats now and then at each `next_heartbeat_at`; `onError` hears every failed beat (the seat is lost
   * when beats stop for the product's interval). Resolves with the first beat's answer.
   */
  async startHeartbeats(onError: (err: unknown) => void = () => undefined): Promise<unknown> {
    const first = await this.heartbeat();
    const schedule = (nextAt: string | null): void => {
      const wait = nextAt ? Math.max(500, Date.parse(nextAt) - this.opts.now()) : 30_000;
      this.timer = setTimeout(() => {
        this.heartbeat()
          .then((answer) => schedule(answer.seat.next_heartbeat_at))
          .catch((err: unknown) => {
            onError(err);
            schedule(null);
          });
      }, wait);
      this.timer.unref();
    };
    schedule(first.seat.next_heartbeat_at);
    return first;
  }

  /** Stops the heartbeats; `release` gives the seat back at once. */
  async stopHeartbeats(release = true): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (release) await this.heartbeat(true);
  }

  // --- checks ---------------------------------------------------------------------------------------

  private async call(route: string, extra: Record<string, unknown> = {}): Promise<unknown> {
    const nonce = crypto.randomBytes(16).toString('hex');
    const body = {
      product_id: this.opts.productId,
      license_key: this.opts.licenseKey,
      hwid: this.opts.hwid,
      nonce,
      ...extra,
    };
    if (this.opts.hwid === null) delete (body as { hwid?: unknown }).hwid;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.opts.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw new LicenseClientError('NETWORK', `the platform cannot be reached (${(err as Error).message})`);
    }
    const kid = res.headers.get('x-signature-key-id') ?? '';
    const signature = res.headers.get('x-signature') ?? '';
    const key = this.keys.get(kid) ?? (this.keys.size === 1 && !kid ? [...this.keys.values()][0] : undefined);
    if (!key)
      throw new LicenseClientError('UNKNOWN_KEY', `answer signed by key "${kid}", which is not pinned`);
    if (!signature || !crypto.verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64')))
      throw new LicenseClientError('BAD_SIGNATURE', 'the answer’s signature does not check');
    let doc = this.parse(text);
    if (doc.encrypted === true) {
      if (!this.opts.encryptionKey)
        throw new LicenseClientError('DECRYPTION_FAILED', 'encrypted answer and no key');
      doc = this.parse(this.decrypt(doc));
    } else if (this.opts.encryptionKey && res.status !== 429 && res.status !== 503) {
      throw new LicenseClientError('NOT_ENCRYPTED', 'a plain answer where the product encrypts');
    }
    if (doc.nonce !== nonce)
      throw new LicenseClientError('REPLAYED', 'the answer does not echo this request’s nonce');
    const ts = doc.timestamp;
    if (typeof ts !== 'number' || Math.abs(ts - this.opts.now() / 1000) > this.opts.maxSkewSeconds)
      throw new LicenseClientError('REPLAYED', 'the answer’s timestamp is too far from this clock');
    this.checkBinding(doc.request, body.hwid ?? null);
    if (res.status >= 400 || doc.success !== true) {
      const code = typeof doc.error_code === 'string' ? doc.error_code : `HTTP_${res.status}`;
      const message = typeof doc.message === 'string' ? doc.message : 'refused';
      throw new LicenseClientError(code, message, res.status);
    }
    return doc.data;
  }

  private checkBinding(request: unknown, hwid: string | null): void {
    if (request === undefined && this.opts.allowUnbound) return;
    const r = (request ?? {}) as Record<string, unknown>;
    if (
      r.product_id !== this.opts.productId ||
      r.license_key_sha256 !== sha256(this.opts.licenseKey) ||
      (r.hwid ?? null) !== hwid
    )
      throw new LicenseClientError('WRONG_REQUEST', 'the answer is about another product, key or machine');
  }

  private checkCertificate(token: string, notBeforeSeen: number): CertificateClaims {
    const parts = token.split('.');
    if (parts.length !== 3)
      throw new LicenseClientError('CERTIFICATE_INVALID', 'not a JWS compact serialization');
    const [h, p, s] = parts as [string, string, string];
    let header: { alg?: unknown; kid?: unknown };
    let claims: CertificateClaims;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown };
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as CertificateClaims;
    } catch {
      throw new LicenseClientError('CERTIFICATE_INVALID', 'unreadable certificate');
    }
    if (header.alg !== 'EdDSA')
      throw new LicenseClientError('CERTIFICATE_INVALID', 'not an EdDSA certificate');
    const key = this.keys.get(String(header.kid));
    if (!key)
      throw new LicenseClientError('UNKNOWN_KEY', `certificate signed by key "${String(header.kid)}"`);
    if (!crypto.verify(null, Buffer.from(`${h}.${p}`, 'ascii'), key, Buffer.from(s, 'base64url')))
      throw new LicenseClientError('CERTIFICATE_INVALID', 'the certificate’s signature does not check');
    // An ip-locked certificate certifies the activated address, no machine: it must name none.
    const machine = claims.lock_type === 'ip' && !claims.seat ? null : this.opts.hwid;
    if (
      claims.product_id !== this.opts.productId ||
      claims.license_key_sha256 !== sha256(this.opts.licenseKey) ||
      (claims.hwid ?? null) !== machine
    )
      throw new LicenseClientError('WRONG_REQUEST', 'the certificate is for another product, key or machine');
    if (this.opts.now() / 1000 >= claims.exp)
      throw new LicenseClientError('CERTIFICATE_EXPIRED', 'the certificate expired: go online to renew it');
    if (claims.iat < notBeforeSeen)
      throw new LicenseClientError('CERTIFICATE_REVOKED', 'the certificate was voided: go online');
    return claims;
  }

  private decrypt(doc: Record<string, unknown>): string {
    try {
      const decipher = crypto.createDecipheriv(
        'aes-256-gcm',
        this.opts.encryptionKey!,
        Buffer.from(String(doc.iv), 'base64'),
      );
      decipher.setAuthTag(Buffer.from(String(doc.tag), 'base64'));
      return Buffer.concat([
        decipher.update(Buffer.from(String(doc.data), 'base64')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new LicenseClientError('DECRYPTION_FAILED', 'the answer does not decrypt with the product’s key');
    }
  }

  private parse(text: string): Record<string, unknown> {
    try {
      const doc: unknown = JSON.parse(text);
      if (doc && typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
    } catch {
      // fall through
    }
    throw new LicenseClientError('BAD_ANSWER', 'the answer is not a JSON object');
  }

  // --- the certificate cache ------------------------------------------------------------------------

  private readCache(): CacheFile {
    const empty: CacheFile = { certificate: null, expires_at: null, not_before_seen: 0 };
    if (!this.opts.certificateFile) return empty;
    try {
      return {
        ...empty,
        ...(JSON.parse(fs.readFileSync(this.opts.certificateFile, 'utf8')) as Partial<CacheFile>),
      };
    } catch {
      return empty;
    }
  }

  /** Written to a temporary file and renamed: a crash never leaves half a cache. */
  private writeCache(cache: CacheFile): void {
    if (!this.opts.certificateFile) return;
    fs.mkdirSync(path.dirname(this.opts.certificateFile), { recursive: true });
    const tmp = `${this.opts.certificateFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(cache), { mode: 0o600 });
    fs.renameSync(tmp, this.opts.certificateFile);
  }

  private noteNotBefore(notBefore: number): void {
    const cache = this.readCache();
    if (notBefore <= cache.not_before_seen) return;
    this.writeCache({ ...cache, not_before_seen: notBefore });
  }

  private dropCertificate(): void {
    const cache = this.readCache();
    if (cache.certificate) this.writeCache({ ...cache, certificate: null, expires_at: null });
  }
}
