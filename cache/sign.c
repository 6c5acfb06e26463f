/*
 * sign.c - detached HMAC-SHA256 signatures of cache entries (see sign.h).
 *
 * Why HMAC-SHA256 and not a public-key signature (Ed25519): it needs no
 * library (SHA-256 is a hundred lines, lib/sha256.c, checked against the
 * standard's vectors), and the setting it serves is a team whose warmup
 * machines and builders are all its own.  Its limit is that every reader
 * that verifies holds the key that signs: a builder must therefore not be
 * able to write to the shared tier (the server's access control:
 * read-only credentials for builders), or a compromised builder could
 * sign entries.  An Ed25519 signature would lift that limit (builders
 * would hold only a public key); libnettle (Debian's nettle-dev) has it,
 * and the format's algorithm field leaves room for it.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "cache/sign.h"
#include "cache/stats.h"

#define SIG_MAGIC "astra-cc-sig 1 hmac-sha256 "
#define MIN_KEY 16
#define MAX_KEY 4096

char *astra_sign_name(const char *entry_name)
{
	const char *dot = strrchr(entry_name, '.');
	size_t n = dot ? (size_t)(dot - entry_name) : strlen(entry_name);
	return xasprintf("%.*s.sig", (int)n, entry_name);
}

int astra_sign_load_key(const char *path, struct astra_buf *key, const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	astra_buf_reset(key);
	if (fd < 0)
		return *why = strerror(errno), -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return *why = "not a regular file", -1;
	}
	if (st.st_size > MAX_KEY) {
		close(fd);
		return *why = "larger than 4096 bytes: not a key file", -1;
	}
	if (astra_buf_read_fd(key, fd, MAX_KEY) < 0) {
		close(fd);
		astra_buf_release(key);
		return *why = strerror(errno), -1;
	}
	close(fd);
	while (key->len && strchr(" \t\r\n", key->buf[key->len - 1]))
		key->buf[--key->len] = '\0';
	if (key->len < MIN_KEY) {
		astra_buf_release(key);
		return *why = "shorter than 16 bytes (use 32 random bytes, e.g. `head -c 32 /dev/urandom | base64`)", -1;
	}
	if (st.st_mode & 077)
		warning("signing_key_file %s can be read by other users (chmod 600 it)", path);
	return 0;
}

static void key_id(const struct astra_buf *key, char out[17])
{
	unsigned char d[ASTRA_SHA256_LEN];
	astra_sha256(key->buf, key->len, d);
	astra_hex(d, 8, out);
}

static void mac(const struct astra_buf *key, const char *name, const void *data, size_t len,
		unsigned char out[ASTRA_SHA256_LEN])
{
	/* The name is bound in: a signed entry moved under another name fails. */
	static const char domain[] = "astra-cc entry signature 1";
	const void *parts[3] = { domain, name, data };
	size_t lens[3] = { sizeof(domain), strlen(name) + 1, len };
	astra_hmac_sha256(key->buf, key->len, parts, lens, 3, out);
}

void astra_sign_make(const struct astra_buf *key, const char *name, const void *data, size_t len,
		     struct astra_buf *out)
{
	unsigned char m[ASTRA_SHA256_LEN];
	char id[17], hex[2 * ASTRA_SHA256_LEN + 1];
	key_id(key, id);
	mac(key, name, data, len, m);
	astra_hex(m, sizeof(m), hex);
	astra_buf_addf(out, SIG_MAGIC "%s %s\n", id, hex);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int astra_sign_check(const struct astra_buf *key, const char *name, const void *data, size_t len,
		     const char *sig, size_t siglen, const char **why)
{
	const size_t magic = sizeof(SIG_MAGIC) - 1;
	unsigned char want[ASTRA_SHA256_LEN], got[ASTRA_SHA256_LEN], diff = 0;
	char id[17];
	size_t i;

	/* Exactly: magic, 16 hex, a space, 64 hex, a newline. */
	if (siglen != magic + 16 + 1 + 64 + 1 || memcmp(sig, SIG_MAGIC, magic) || sig[magic + 16] != ' ' ||
	    sig[siglen - 1] != '\n')
		return *why = "malformed signature", 0;
	for (i = 0; i < 16; i++)
		if (hexval((unsigned char)sig[magic + i]) < 0)
			return *why = "malformed signature", 0;
	for (i = 0; i < ASTRA_SHA256_LEN; i++) {
		int hi = hexval((unsigned char)sig[magic + 17 + 2 * i]), lo = hexval((unsigned char)sig[magic + 18 + 2 * i]);
		if (hi < 0 || lo < 0)
			return *why = "malformed signature", 0;
		got[i] = (unsigned char)(hi << 4 | lo);
	}
	key_id(key, id);
	if (memcmp(sig + magic, id, 16))
		return *why = "signed with another key", 0;
	mac(key, name, data, len, want);
	for (i = 0; i < ASTRA_SHA256_LEN; i++)
		diff |= want[i] ^ got[i];
	if (diff)
		return *why = "signature does not match (the entry was changed, or signed by someone else)", 0;
	return 1;
}

/* The configured key, loaded once per process: 1 (key), 0 (none set), -1 (unusable, logged once). */
static int configured_key(const struct astra_buf **out)
{
	static struct astra_buf key = ASTRA_BUF_INIT;
	static int state = -2;
	if (state == -2) {
		const char *path = astra_config_str(ASTRA_CFG_SIGNING_KEY_FILE);
		const char *why;
		if (!path || !*path) {
			state = 0;
		} else if (astra_sign_load_key(path, &key, &why) < 0) {
			/* The path may be logged; the key never is. */
			warning("signing_key_file %s: %s; entries are neither signed nor verified", path, why);
			state = -1;
		} else {
			state = 1;
		}
	}
	*out = &key;
	return state;
}

int astra_sign_verify_stored(struct astra_storage *s, const char *name, const void *data, size_t len,
			     struct astra_buf *sig)
{
	struct astra_buf local = ASTRA_BUF_INIT, *b = sig ? sig : &local;
	const struct astra_buf *key;
	const char *why = NULL;
	char *sname;
	int r, ok = 0;

	if (sig)
		astra_buf_reset(sig);
	if (!astra_config_bool(ASTRA_CFG_REQUIRE_SIGNATURE))
		return 1;
	sname = astra_sign_name(name);
	if (configured_key(&key) != 1) {
		why = "require_signature is set but there is no usable signing_key_file to verify with";
	} else {
		r = s->ops->get(s, sname, b, NULL);
		if (r < 0)
			why = "its signature cannot be read";
		else if (r == 0)
			why = "unsigned";
		else
			ok = astra_sign_check(key, name, data, len, b->buf, b->len, &why);
	}
	if (!ok) {
		warning("cache entry %s/%s: %s; treated as a miss (require_signature)", s->url, name, why);
		astra_stats_inc(ASTRA_STAT_UNSIGNED);
		astra_buf_reset(b);
	}
	free(sname);
	astra_buf_release(&local);
	return ok;
}

int astra_sign_store(struct astra_storage *s, const char *name, const void *data, size_t len,
		     const struct astra_buf *sig)
{
	struct astra_buf made = ASTRA_BUF_INIT;
	const struct astra_buf *key, *b = sig;
	char *sname;
	int r;

	if (!b || !b->len) {
		if (configured_key(&key) != 1)
			return 0;
		astra_sign_make(key, name, data, len, &made);
		b = &made;
	}
	sname = astra_sign_name(name);
	r = s->ops->put(s, sname, b->buf, b->len);
	free(sname);
	astra_buf_release(&made);
	return r < 0 ? -1 : 0;
}
