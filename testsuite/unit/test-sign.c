/*
 * Unit tests for SHA-256 and HMAC-SHA256 (lib/sha256.c) against the
 * standards' vectors (FIPS 180-4 examples as published with it; RFC 4231
 * test cases 1, 2, 3, 6, 7), the split-update paths at every block
 * boundary, and the entry signatures of cache/sign.c: a round trip, and
 * every changed byte of entry, name or signature rejected.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/sha256.h"
#include "cache/sign.h"
#include "testsuite/unit/unit.h"

static const char *hex_sha256(const void *data, size_t len)
{
	static char out[65];
	unsigned char d[ASTRA_SHA256_LEN];
	astra_sha256(data, len, d);
	astra_hex(d, sizeof(d), out);
	return out;
}

static const char *hex_hmac(const void *key, size_t klen, const void *data, size_t len)
{
	static char out[65];
	unsigned char d[ASTRA_SHA256_LEN];
	const void *parts[1] = { data };
	size_t lens[1] = { len };
	astra_hmac_sha256(key, klen, parts, lens, 1, d);
	astra_hex(d, sizeof(d), out);
	return out;
}

static void test_sha256(void)
{
	char *million = malloc(1000000);
	size_t split;
	static const char two_blocks[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
					 "klmnopqrlmnopqrsmnopqrstnopqrstu";

	CHECK_STR(hex_sha256("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(hex_sha256("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(hex_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56),
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR(hex_sha256(two_blocks, strlen(two_blocks)),
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	memset(million, 'a', 1000000);
	CHECK_STR(hex_sha256(million, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* The same digest whatever the pieces: every split of 200 bytes. */
	for (split = 0; split <= 200; split++) {
		struct astra_sha256 c;
		unsigned char d[ASTRA_SHA256_LEN];
		char h[65];
		astra_sha256_init(&c);
		astra_sha256_update(&c, million, split);
		astra_sha256_update(&c, million + split, 200 - split);
		astra_sha256_final(&c, d);
		astra_hex(d, sizeof(d), h);
		CHECK_STR(h, "c2a908d98f5df987ade41b5fce213067efbcc21ef2240212a41e54b5e7c28ae5"); /* 200 x 'a' (Python's hashlib) */
	}
	free(million);
}

static void test_hmac(void)
{
	unsigned char k20[20], d50[50], k131[131];
	memset(k20, 0x0b, sizeof(k20));
	CHECK_STR(hex_hmac(k20, 20, "Hi There", 8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	CHECK_STR(hex_hmac("Jefe", 4, "what do ya want for nothing?", 28),
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k20, 0xaa, sizeof(k20));
	memset(d50, 0xdd, sizeof(d50));
	CHECK_STR(hex_hmac(k20, 20, d50, 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	memset(k131, 0xaa, sizeof(k131));
	CHECK_STR(hex_hmac(k131, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54),
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	CHECK_STR(hex_hmac(k131, 131,
			   "This is a test using a larger than block-size key and a larger than block-size data. "
			   "The key needs to be hashed before being used by the HMAC algorithm.", 152),
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void test_signatures(void)
{
	struct astra_buf key = ASTRA_BUF_INIT, other = ASTRA_BUF_INIT, sig = ASTRA_BUF_INIT;
	static const char name[] = "0123456789abcdef0123456789abcdef-90.entry";
	static const char entry[] = "astra-cc entry 1 xxh3-64:0000000000000000 2 0\n{}";
	char *copy;
	const char *why = NULL;
	size_t i;
	int rejected = 0;

	astra_buf_adds(&key, "0123456789abcdef0123456789abcdef");
	astra_buf_adds(&other, "fedcba9876543210fedcba9876543210");
	astra_sign_make(&key, name, entry, sizeof(entry) - 1, &sig);
	CHECK_INT(sig.len, strlen("astra-cc-sig 1 hmac-sha256 ") + 16 + 1 + 64 + 1);
	CHECK_INT(astra_sign_check(&key, name, entry, sizeof(entry) - 1, sig.buf, sig.len, &why), 1);
	CHECK_INT(astra_sign_check(&other, name, entry, sizeof(entry) - 1, sig.buf, sig.len, &why), 0);
	CHECK_STR(why, "signed with another key");
	CHECK_INT(astra_sign_check(&key, "0123456789abcdef0123456789abcdef-80.entry", entry, sizeof(entry) - 1, sig.buf,
				   sig.len, &why), 0);
	CHECK_INT(astra_sign_check(&key, name, entry, sizeof(entry) - 2, sig.buf, sig.len, &why), 0);
	CHECK_INT(astra_sign_check(&key, name, entry, sizeof(entry) - 1, sig.buf, sig.len - 1, &why), 0);
	CHECK_STR(why, "malformed signature");

	/* Every single-bit flip of the entry, and of the signature, is refused. */
	copy = xmalloc(sizeof(entry));
	for (i = 0; i < (sizeof(entry) - 1) * 8; i++) {
		memcpy(copy, entry, sizeof(entry));
		copy[i / 8] ^= (char)(1 << (i % 8));
		rejected += !astra_sign_check(&key, name, copy, sizeof(entry) - 1, sig.buf, sig.len, &why);
	}
	CHECK_INT(rejected, (sizeof(entry) - 1) * 8);
	free(copy);
	copy = xmalloc(sig.len);
	rejected = 0;
	for (i = 0; i < sig.len * 8; i++) {
		memcpy(copy, sig.buf, sig.len);
		copy[i / 8] ^= (char)(1 << (i % 8));
		rejected += !astra_sign_check(&key, name, entry, sizeof(entry) - 1, copy, sig.len, &why);
	}
	CHECK_INT(rejected, sig.len * 8);
	free(copy);

	copy = astra_sign_name(name);
	CHECK_STR(copy, "0123456789abcdef0123456789abcdef-90.sig");
	free(copy);
	astra_buf_release(&key);
	astra_buf_release(&other);
	astra_buf_release(&sig);
}

static void test_key_file(void)
{
	char path[] = "/tmp/astra-test-key-XXXXXX";
	struct astra_buf key = ASTRA_BUF_INIT;
	const char *why = NULL;
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, "short\n", 6) == 6);
	CHECK_INT(astra_sign_load_key(path, &key, &why), -1);
	CHECK(why && strstr(why, "shorter than 16 bytes"));
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, "0123456789abcdef0123\n\n", 22, 0) == 22);
	CHECK_INT(astra_sign_load_key(path, &key, &why), 0);
	CHECK_STR(key.buf, "0123456789abcdef0123");
	close(fd);
	unlink(path);
	CHECK_INT(astra_sign_load_key(path, &key, &why), -1);
	astra_buf_release(&key);
}

int main(void)
{
	test_sha256();
	test_hmac();
	test_signatures();
	test_key_file();
	return unit_done();
}
