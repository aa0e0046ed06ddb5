/*
 * Matjar license certificates in C (OpenSSL's libcrypto, Debian: libssl-dev): checks an offline license
 * certificate (an EdDSA JWS from POST /verify/certificate) with pinned public keys and no network.
 * See README.md.
 */
#ifndef MATJAR_LICENSE_H
#define MATJAR_LICENSE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  MATJAR_OK = 0,
  MATJAR_CERTIFICATE_INVALID, /* not a JWS, unreadable, not EdDSA, or the signature does not check */
  MATJAR_UNKNOWN_KEY,         /* signed by a kid that is not pinned */
  MATJAR_WRONG_REQUEST,       /* for another product, key or machine */
  MATJAR_CERTIFICATE_EXPIRED, /* now >= exp: go online to renew it */
  MATJAR_CERTIFICATE_REVOKED, /* iat < the largest not_before seen online */
  MATJAR_NO_MEMORY
} matjar_status;

typedef struct {
  const char *kid;
  const char *pem; /* SPKI PEM, from GET /verify/public-key `keys` */
} matjar_key;

typedef struct {
  char status[16];   /* active or grace */
  int64_t iat;
  int64_t exp;
  int64_t not_before;
  /* A floating license's seat (-1: none): when online, the program drops a certificate whose seat is not
     the one its heartbeat names (`seat.id`, `seat.generation`), or hands it in on the heartbeat. */
  int64_t seat_id;
  int64_t seat_generation;
} matjar_claims;

/* The error's name, as the other clients spell it (CERTIFICATE_EXPIRED, ...). */
const char *matjar_status_name(matjar_status status);

/*
 * Checks `jws` against the pinned `keys`, the expected product, license key (exactly as the program sends
 * it) and hwid (NULL: none), the clock `now` (Unix seconds) and the largest `not_before` seen online.
 * An ip-locked certificate names no machine: it is accepted whatever `hwid` is given.
 */
matjar_status matjar_check_certificate(const char *jws, const matjar_key *keys, size_t nkeys,
                                       int64_t product_id, const char *license_key, const char *hwid,
                                       int64_t now, int64_t not_before_seen, matjar_claims *out);

#endif
