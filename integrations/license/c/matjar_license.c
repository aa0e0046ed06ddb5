/* Matjar license certificates in C: see matjar_license.h and README.md. */
#include "matjar_license.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *matjar_status_name(matjar_status status) {
  switch (status) {
    case MATJAR_OK: return "OK";
    case MATJAR_CERTIFICATE_INVALID: return "CERTIFICATE_INVALID";
    case MATJAR_UNKNOWN_KEY: return "UNKNOWN_KEY";
    case MATJAR_WRONG_REQUEST: return "WRONG_REQUEST";
    case MATJAR_CERTIFICATE_EXPIRED: return "CERTIFICATE_EXPIRED";
    case MATJAR_CERTIFICATE_REVOKED: return "CERTIFICATE_REVOKED";
    case MATJAR_NO_MEMORY: return "NO_MEMORY";
  }
  return "UNKNOWN";
}

/* base64url without padding -> bytes; returns the length, or -1. */
static long b64url_decode(const char *in, size_t len, unsigned char *out) {
  unsigned int acc = 0;
  int bits = 0;
  long n = 0;
  for (size_t i = 0; i < len; i++) {
    char c = in[i];
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-') v = 62;
    else if (c == '_') v = 63;
    else return -1;
    acc = (acc << 6) | (unsigned int)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (unsigned char)((acc >> bits) & 0xFF);
    }
  }
  return n;
}

/* --- a small JSON reader: the top-level members of one object -------------------------------------- */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* Reads a JSON string at p (at the quote) into out (NUL-terminated, at most cap-1 bytes, ASCII escapes). */
static const char *read_string(const char *p, char *out, size_t cap) {
  size_t n = 0;
  if (*p != '"') return NULL;
  p++;
  while (*p && *p != '"') {
    char c = *p++;
    if (c == '\\') {
      char e = *p++;
      switch (e) {
        case '"': c = '"'; break;
        case '\\': c = '\\'; break;
        case '/': c = '/'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
          unsigned int u = 0;
          for (int i = 0; i < 4; i++) {
            char h = *p++;
            u <<= 4;
            if (h >= '0' && h <= '9') u |= (unsigned int)(h - '0');
            else if (h >= 'a' && h <= 'f') u |= (unsigned int)(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') u |= (unsigned int)(h - 'A' + 10);
            else return NULL;
          }
          if (u == 0 || u > 0x7F) return NULL; /* values compared here are ASCII */
          c = (char)u;
          break;
        }
        default: return NULL;
      }
    }
    if (out) {
      if (n + 1 >= cap) return NULL;
      out[n++] = c;
    }
  }
  if (*p != '"') return NULL;
  if (out) out[n] = '\0';
  return p + 1;
}

/* Skips any JSON value at p. */
static const char *skip_value(const char *p) {
  p = skip_ws(p);
  if (*p == '"') return read_string(p, NULL, 0);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    while (*p) {
      if (*p == '"') {
        p = read_string(p, NULL, 0);
        if (!p) return NULL;
        continue;
      }
      if (*p == '{' || *p == '[') depth++;
      if (*p == '}' || *p == ']') {
        depth--;
        if (depth == 0) return p + 1;
      }
      p++;
    }
    return NULL;
  }
  while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
  return p;
}

/* Finds the top-level member `name` of the object in json; returns a pointer to its value, or NULL. */
static const char *member(const char *json, const char *name) {
  char key[128];
  const char *p = skip_ws(json);
  if (*p != '{') return NULL;
  p = skip_ws(p + 1);
  while (*p == '"') {
    p = read_string(p, key, sizeof key);
    if (!p) return NULL;
    p = skip_ws(p);
    if (*p != ':') return NULL;
    p = skip_ws(p + 1);
    if (strcmp(key, name) == 0) return p;
    p = skip_value(p);
    if (!p) return NULL;
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
  }
  return NULL;
}

static int member_int(const char *json, const char *name, int64_t *out) {
  const char *v = member(json, name);
  char *end;
  if (!v) return 0;
  long long n = strtoll(v, &end, 10);
  if (end == v) return 0;
  *out = (int64_t)n;
  return 1;
}

/* 1: a string (copied), 0: null, -1: absent or another type. */
static int member_string(const char *json, const char *name, char *out, size_t cap) {
  const char *v = member(json, name);
  if (!v) return -1;
  if (strncmp(v, "null", 4) == 0) return 0;
  return read_string(v, out, cap) ? 1 : -1;
}

/* --- the check ---------------------------------------------------------------------------------------- */

static void sha256_hex(const char *text, char hex[65]) {
  unsigned char digest[32];
  unsigned int len = 0;
  EVP_Digest(text, strlen(text), digest, &len, EVP_sha256(), NULL);
  for (unsigned int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", digest[i]);
  hex[64] = '\0';
}

static int ed25519_verify(const char *pem, const unsigned char *msg, size_t msglen, const unsigned char *sig,
                          size_t siglen) {
  BIO *bio = BIO_new_mem_buf(pem, -1);
  EVP_PKEY *key = bio ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int ok = key && ctx && EVP_PKEY_id(key) == EVP_PKEY_ED25519 &&
           EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 &&
           EVP_DigestVerify(ctx, sig, siglen, msg, msglen) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  BIO_free(bio);
  return ok;
}

matjar_status matjar_check_certificate(const char *jws, const matjar_key *keys, size_t nkeys,
                                       int64_t product_id, const char *license_key, const char *hwid,
                                       int64_t now, int64_t not_before_seen, matjar_claims *out) {
  const char *dot1 = strchr(jws, '.');
  const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
  if (!dot1 || !dot2 || strchr(dot2 + 1, '.')) return MATJAR_CERTIFICATE_INVALID;
  size_t hlen = (size_t)(dot1 - jws), plen = (size_t)(dot2 - dot1 - 1), slen = strlen(dot2 + 1);
  char *header = calloc(1, hlen + 1), *claims = calloc(1, plen + 1);
  unsigned char *sig = calloc(1, slen + 1);
  matjar_status result = MATJAR_CERTIFICATE_INVALID;
  char text[512], kid[64];
  int64_t pid = 0;
  if (!header || !claims || !sig) {
    result = MATJAR_NO_MEMORY;
    goto done;
  }
  long hn = b64url_decode(jws, hlen, (unsigned char *)header);
  long pn = b64url_decode(dot1 + 1, plen, (unsigned char *)claims);
  long sn = b64url_decode(dot2 + 1, slen, sig);
  if (hn < 0 || pn < 0 || sn != 64) goto done;
  header[hn] = '\0';
  claims[pn] = '\0';
  if (member_string(header, "alg", text, sizeof text) != 1 || strcmp(text, "EdDSA") != 0) goto done;
  if (member_string(header, "kid", kid, sizeof kid) != 1) goto done;
  const char *pem = NULL;
  for (size_t i = 0; i < nkeys; i++)
    if (strcmp(keys[i].kid, kid) == 0) pem = keys[i].pem;
  if (!pem) {
    result = MATJAR_UNKNOWN_KEY;
    goto done;
  }
  if (!ed25519_verify(pem, (const unsigned char *)jws, (size_t)(dot2 - jws), sig, (size_t)sn)) goto done;

  char hash[65];
  sha256_hex(license_key, hash);
  int hw = member_string(claims, "hwid", text, sizeof text);
  char keyhash[80];
  if (!member_int(claims, "product_id", &pid) ||
      member_string(claims, "license_key_sha256", keyhash, sizeof keyhash) != 1 ||
      !member_int(claims, "iat", &out->iat) || !member_int(claims, "exp", &out->exp) ||
      member_string(claims, "status", out->status, sizeof out->status) != 1 || hw < 0)
    goto done;
  if (!member_int(claims, "not_before", &out->not_before)) out->not_before = 0;
  /* A floating license's seat: the program compares it with its heartbeat's `seat` when online. */
  const char *seat = member(claims, "seat");
  out->seat_id = -1;
  out->seat_generation = -1;
  if (seat && *seat == '{' &&
      !(member_int(seat, "id", &out->seat_id) && member_int(seat, "generation", &out->seat_generation)))
    goto done;
  /* An ip-locked certificate certifies the activated address, no machine: it must name none. */
  char lock[16];
  const char *machine = hwid;
  if (member_string(claims, "lock_type", lock, sizeof lock) == 1 && strcmp(lock, "ip") == 0 && out->seat_id < 0)
    machine = NULL;
  if (pid != product_id || strcmp(keyhash, hash) != 0 || (hw == 0) != (machine == NULL) ||
      (hw == 1 && strcmp(text, machine) != 0)) {
    result = MATJAR_WRONG_REQUEST;
    goto done;
  }
  if (now >= out->exp) result = MATJAR_CERTIFICATE_EXPIRED;
  else if (out->iat < not_before_seen) result = MATJAR_CERTIFICATE_REVOKED;
  else result = MATJAR_OK;

done:
  free(header);
  free(claims);
  free(sig);
  return result;
}

#ifdef MATJAR_CLI
#include <time.h>

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc(1, (size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
  }
  return buf;
}

/* matjar-cert CERT_FILE KID PEM_FILE PRODUCT_ID LICENSE_KEY HWID|- [NOT_BEFORE_SEEN [NOW]] */
int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s CERT_FILE KID PEM_FILE PRODUCT_ID LICENSE_KEY HWID|- [NOT_BEFORE_SEEN [NOW]]\n",
            argv[0]);
    return 2;
  }
  char *jws = read_file(argv[1]);
  char *pem = read_file(argv[3]);
  if (!jws || !pem) {
    fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[3]);
    return 2;
  }
  matjar_key key = {argv[2], pem};
  matjar_claims claims;
  memset(&claims, 0, sizeof claims);
  int64_t not_before = argc > 7 ? strtoll(argv[7], NULL, 10) : 0;
  int64_t now = argc > 8 ? strtoll(argv[8], NULL, 10) : (int64_t)time(NULL);
  const char *hwid = strcmp(argv[6], "-") == 0 ? NULL : argv[6];
  matjar_status s = matjar_check_certificate(jws, &key, 1, strtoll(argv[4], NULL, 10), argv[5], hwid, now,
                                             not_before, &claims);
  if (s == MATJAR_OK && claims.seat_id >= 0)
    printf("OK %s %lld seat %lld %lld\n", claims.status, (long long)claims.exp, (long long)claims.seat_id,
           (long long)claims.seat_generation);
  else if (s == MATJAR_OK) printf("OK %s %lld\n", claims.status, (long long)claims.exp);
  else printf("%s\n", matjar_status_name(s));
  free(jws);
  free(pem);
  return s == MATJAR_OK ? 0 : 1;
}
#endif
