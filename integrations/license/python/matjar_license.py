"""Matjar license client for Python 3 (standard library + `cryptography`, Debian's python3-cryptography).

Every check a License answer needs: a fresh nonce echoed by the answer and a server timestamp near the local
clock (replays), the Ed25519 X-Signature over the exact body with a pinned key (by kid), the `request`
binding (product, key hash, hwid), AES-256-GCM decryption for a product that encrypts, offline certificates
(EdDSA JWS) cached on disk with their expiry and voided by `not_before`, and floating-seat heartbeats that
hand the cached certificate in (a void one is dropped; a release drops it too).
Every failure is a LicenseClientError with a `code` (the platform's error_code, or the client's own).

Command line (used by the suite):
  python3 matjar_license.py check|certificate|offline|heartbeat|release --base URL --product ID --key KEY
      [--hwid HWID] --public-keys FILE.json [--encryption-key B64] [--cache FILE] [--allow-unbound]
prints the result as JSON on stdout (exit 0), or {"error": code, "status": http_status} (exit 1).
"""

import argparse
import base64
import hashlib
import json
import os
import secrets
import sys
import tempfile
import time
import urllib.error
import urllib.request

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import load_pem_public_key


class LicenseClientError(Exception):
    def __init__(self, code, message, status=None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.status = status


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sha256(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LicenseClient:
    def __init__(self, base_url, product_id, license_key, public_keys, hwid=None, encryption_key=None,
                 certificate_file=None, max_skew_seconds=300, allow_unbound=False, timeout=10, now=time.time):
        self.base_url = base_url.rstrip("/")
        self.product_id = product_id
        self.license_key = license_key
        self.hwid = hwid
        self.keys = {kid: load_pem_public_key(pem.encode("ascii")) for kid, pem in public_keys.items()}
        if not self.keys:
            raise LicenseClientError("UNKNOWN_KEY", "pin at least one public key")
        self.aes = AESGCM(base64.b64decode(encryption_key)) if encryption_key else None
        self.certificate_file = certificate_file
        self.max_skew = max_skew_seconds
        self.allow_unbound = allow_unbound
        self.timeout = timeout
        self.now = now

    # --- calls ----------------------------------------------------------------------------------

    def verify(self):
        data = self._call("/verify")
        if isinstance(data.get("not_before"), int):
            self._note_not_before(data["not_before"])
        return data

    def renew_certificate(self):
        data = self._call("/verify/certificate")
        token = data.get("certificate")
        if not isinstance(token, str):
            raise LicenseClientError("BAD_ANSWER", "no certificate")
        cache = self._read_cache()
        claims = self._check_certificate(token, cache["not_before_seen"])
        cache.update(certificate=token, expires_at=claims["exp"])
        self._write_cache(cache)
        return claims

    def check_offline(self):
        cache = self._read_cache()
        if not cache.get("certificate"):
            raise LicenseClientError("NO_CERTIFICATE", "no certificate cached: go online once")
        return self._check_certificate(cache["certificate"], cache["not_before_seen"])

    def check(self):
        """Online: /verify, and a certificate renewed past half its life. Unreachable: the cached certificate."""
        try:
            license = self.verify()
        except LicenseClientError as err:
            if err.code == "NETWORK" or err.status in (429, 503):
                claims = self.check_offline()
                return {"online": False, "status": claims["status"], "entitlements": claims["entitlements"],
                        "certificate": claims}
            if err.status is not None:
                self._drop_certificate()
            raise
        claims = None
        if self.certificate_file:
            try:
                claims = self.check_offline()
                if self.now() > claims["iat"] + (claims["exp"] - claims["iat"]) / 2:
                    claims = self.renew_certificate()
            except LicenseClientError as err:
                if err.status is not None:
                    raise
                claims = self.renew_certificate()
        return {"online": True, "status": license["status"], "entitlements": license.get("entitlements", {}),
                "license": license, "certificate": claims}

    def heartbeat(self, release=False):
        """Takes or keeps this machine's floating seat; beat again at data["seat"]["next_heartbeat_at"].

        Hands in the cached certificate, which the platform checks against the seat: a void one (its seat
        was released or certified again) is dropped and the beat goes on without it. A release drops the
        cached certificate too: it is handed back with the seat.
        """
        extra = {"release": True} if release else {}
        cached = self._read_cache().get("certificate")
        try:
            data = self._call("/verify/heartbeat", dict(extra, certificate=cached) if cached else extra)
        except LicenseClientError as err:
            if not cached or err.code != "CERTIFICATE_VOID":
                raise
            self._drop_certificate()
            data = self._call("/verify/heartbeat", extra)
        if release:
            self._drop_certificate()
        return data

    # --- checks ---------------------------------------------------------------------------------

    def _call(self, route, extra=None):
        nonce = secrets.token_hex(16)
        body = {"product_id": self.product_id, "license_key": self.license_key, "nonce": nonce}
        if self.hwid is not None:
            body["hwid"] = self.hwid
        body.update(extra or {})
        request = urllib.request.Request(
            self.base_url + route, data=json.dumps(body).encode("utf-8"), method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as res:
                status, headers, raw = res.status, res.headers, res.read()
        except urllib.error.HTTPError as err:
            status, headers, raw = err.code, err.headers, err.read()
        except (urllib.error.URLError, OSError) as err:
            raise LicenseClientError("NETWORK", f"the platform cannot be reached ({err})")
        kid = headers.get("X-Signature-Key-Id") or ""
        key = self.keys.get(kid)
        if key is None:
            raise LicenseClientError("UNKNOWN_KEY", f'answer signed by key "{kid}", which is not pinned')
        try:
            key.verify(base64.b64decode(headers.get("X-Signature") or ""), raw)
        except (InvalidSignature, ValueError):
            raise LicenseClientError("BAD_SIGNATURE", "the answer's signature does not check")
        doc = self._parse(raw)
        if doc.get("encrypted") is True:
            if self.aes is None:
                raise LicenseClientError("DECRYPTION_FAILED", "encrypted answer and no key")
            try:
                plain = self.aes.decrypt(base64.b64decode(doc["iv"]),
                                         base64.b64decode(doc["data"]) + base64.b64decode(doc["tag"]), None)
            except (InvalidTag, KeyError, ValueError):
                raise LicenseClientError("DECRYPTION_FAILED", "the answer does not decrypt with the product's key")
            doc = self._parse(plain)
        elif self.aes is not None and status not in (429, 503):
            raise LicenseClientError("NOT_ENCRYPTED", "a plain answer where the product encrypts")
        if doc.get("nonce") != nonce:
            raise LicenseClientError("REPLAYED", "the answer does not echo this request's nonce")
        ts = doc.get("timestamp")
        if not isinstance(ts, int) or abs(ts - self.now()) > self.max_skew:
            raise LicenseClientError("REPLAYED", "the answer's timestamp is too far from this clock")
        self._check_binding(doc.get("request"), body.get("hwid"))
        if status >= 400 or doc.get("success") is not True:
            raise LicenseClientError(doc.get("error_code") or f"HTTP_{status}", doc.get("message") or "refused",
                                     status)
        return doc["data"]

    def _check_binding(self, request, hwid):
        if request is None and self.allow_unbound:
            return
        request = request or {}
        if (request.get("product_id") != self.product_id
                or request.get("license_key_sha256") != _sha256(self.license_key)
                or request.get("hwid") != hwid):
            raise LicenseClientError("WRONG_REQUEST", "the answer is about another product, key or machine")

    def _check_certificate(self, token, not_before_seen):
        parts = token.split(".")
        if len(parts) != 3:
            raise LicenseClientError("CERTIFICATE_INVALID", "not a JWS compact serialization")
        try:
            header = json.loads(_b64url_decode(parts[0]))
            claims = json.loads(_b64url_decode(parts[1]))
        except ValueError:
            raise LicenseClientError("CERTIFICATE_INVALID", "unreadable certificate")
        if header.get("alg") != "EdDSA":
            raise LicenseClientError("CERTIFICATE_INVALID", "not an EdDSA certificate")
        key = self.keys.get(str(header.get("kid")))
        if key is None:
            raise LicenseClientError("UNKNOWN_KEY", f'certificate signed by key "{header.get("kid")}"')
        try:
            key.verify(_b64url_decode(parts[2]), f"{parts[0]}.{parts[1]}".encode("ascii"))
        except InvalidSignature:
            raise LicenseClientError("CERTIFICATE_INVALID", "the certificate's signature does not check")
        # An ip-locked certificate certifies the activated address, no machine: it must name none.
        machine = None if claims.get("lock_type") == "ip" and not claims.get("seat") else self.hwid
        if (claims.get("product_id") != self.product_id
                or claims.get("license_key_sha256") != _sha256(self.license_key)
                or claims.get("hwid") != machine):
            raise LicenseClientError("WRONG_REQUEST", "the certificate is for another product, key or machine")
        if self.now() >= claims["exp"]:
            raise LicenseClientError("CERTIFICATE_EXPIRED", "the certificate expired: go online to renew it")
        if claims["iat"] < not_before_seen:
            raise LicenseClientError("CERTIFICATE_REVOKED", "the certificate was voided: go online")
        return claims

    @staticmethod
    def _parse(raw):
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            raise LicenseClientError("BAD_ANSWER", "the answer is not a JSON object")
        return doc

    # --- the certificate cache --------------------------------------------------------------------

    def _read_cache(self):
        cache = {"certificate": None, "expires_at": None, "not_before_seen": 0}
        if self.certificate_file:
            try:
                with open(self.certificate_file, encoding="utf-8") as f:
                    cache.update(json.load(f))
            except (OSError, ValueError):
                pass
        return cache

    def _write_cache(self, cache):
        """Written to a temporary file and renamed: a crash never leaves half a cache."""
        if not self.certificate_file:
            return
        folder = os.path.dirname(os.path.abspath(self.certificate_file))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(cache, f)
        os.replace(tmp, self.certificate_file)

    def _note_not_before(self, not_before):
        cache = self._read_cache()
        if not_before > cache["not_before_seen"]:
            cache["not_before_seen"] = not_before
            self._write_cache(cache)

    def _drop_certificate(self):
        cache = self._read_cache()
        if cache.get("certificate"):
            cache.update(certificate=None, expires_at=None)
            self._write_cache(cache)


def main(argv):
    parser = argparse.ArgumentParser(description="Matjar license client")
    parser.add_argument("action", choices=["check", "certificate", "offline", "heartbeat", "release"])
    parser.add_argument("--base", required=True)
    parser.add_argument("--product", type=int, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--hwid")
    parser.add_argument("--public-keys", required=True, help="JSON file: {kid: PEM}")
    parser.add_argument("--encryption-key")
    parser.add_argument("--cache")
    parser.add_argument("--allow-unbound", action="store_true")
    args = parser.parse_args(argv)
    with open(args.public_keys, encoding="utf-8") as f:
        keys = json.load(f)
    client = LicenseClient(args.base, args.product, args.key, keys, hwid=args.hwid,
                           encryption_key=args.encryption_key, certificate_file=args.cache,
                           allow_unbound=args.allow_unbound)
    try:
        if args.action == "check":
            out = client.check()
        elif args.action == "certificate":
            out = client.renew_certificate()
        elif args.action == "offline":
            out = client.check_offline()
        else:
            out = client.heartbeat(release=args.action == "release")
    except LicenseClientError as err:
        print(json.dumps({"error": err.code, "status": err.status, "message": str(err)}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
