/*
 * hash.c - XXH3 (see hash.h).
 */
#include "autoconfig.h"

#include <string.h>

#ifdef ASTRA_XXH_INLINE
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "lib/hash.h"

void astra_hash128(const void *data, size_t len, struct astra_digest *out)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	XXH128_canonical_t c;
	size_t i;
	static const char hex[] = "0123456789abcdef";
	XXH128_canonicalFromHash(&c, h);
	memcpy(out->hash, c.digest, 16);
	for (i = 0; i < 16; i++) {
		out->hex[2 * i] = hex[out->hash[i] >> 4];
		out->hex[2 * i + 1] = hex[out->hash[i] & 15];
	}
	out->hex[32] = '\0';
}

unsigned long long astra_hash64(const void *data, size_t len)
{
	return (unsigned long long)XXH3_64bits(data, len);
}
