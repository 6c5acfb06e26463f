/*
 * sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104).
 *
 * The cryptographic digest behind signed cache entries (cache/sign.c).
 * It is separate from lib/hash.c, the fast non-cryptographic digest
 * (XXH3) that names and checks entries: XXH3 detects accidents, not
 * forgeries, and a signature needs a hash nobody can find collisions in.
 * Written here from the standard (about a hundred lines, checked against
 * the FIPS 180-4 and RFC 4231 test vectors in testsuite/unit/test-sign.c)
 * rather than taken from a crypto library, so that astra-cc does not link
 * one into every compile for a few kilobytes of hashing.
 */
#ifndef ASTRA_SHA256_H
#define ASTRA_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ASTRA_SHA256_LEN 32

struct astra_sha256 {
	uint32_t h[8];
	uint64_t bytes;        /* message length so far */
	unsigned char block[64];
	size_t fill;           /* bytes in block */
};

void astra_sha256_init(struct astra_sha256 *c);
void astra_sha256_update(struct astra_sha256 *c, const void *data, size_t len);
/* Write the digest to out and wipe c. */
void astra_sha256_final(struct astra_sha256 *c, unsigned char out[ASTRA_SHA256_LEN]);

/* SHA-256 of one buffer. */
void astra_sha256(const void *data, size_t len, unsigned char out[ASTRA_SHA256_LEN]);

/*
 * HMAC-SHA256 of the concatenation of parts[0..n-1] (lens[i] bytes each)
 * under key (any length; keys longer than a block are hashed first, as
 * RFC 2104 says).
 */
void astra_hmac_sha256(const void *key, size_t key_len, const void *const *parts, const size_t *lens, size_t n,
		       unsigned char out[ASTRA_SHA256_LEN]);

/* Lowercase hex of len bytes into out (2 * len + 1 bytes). */
void astra_hex(const unsigned char *in, size_t len, char *out);

#endif
