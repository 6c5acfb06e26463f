/*
 * hash.h - the project's one content digest: XXH3-128.
 *
 * Keys, header contents and device names are hashed with it.  The only
 * file that includes xxhash.h (an adapter, as extract.c is for libclang).
 * Not a cryptographic hash: it names content, it does not authenticate it.
 */
#ifndef ASTRA_HASH_H
#define ASTRA_HASH_H

#include <stddef.h>

struct astra_digest {
	unsigned char hash[16];   /* canonical (big-endian) byte order */
	char hex[33];             /* 32 lowercase hex digits */
};

void astra_hash128(const void *data, size_t len, struct astra_digest *out);

/* XXH3-64, for checksums of cache files and names of memos. */
unsigned long long astra_hash64(const void *data, size_t len);

#endif
