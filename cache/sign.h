/*
 * sign.h - signed cache entries: who wrote this entry?
 *
 * An entry's checks (manifest.c) prove it is intact; they cannot prove who
 * wrote it, and with a shared remote tier anyone who can write there can
 * put code into every reader's binary.  A signature binds an entry to a
 * secret key: warmup machines that hold the key (`signing_key_file`) sign
 * what they store; builders with `require_signature` use an entry only if
 * its signature verifies under the same key.  doc/cache.md, "Trust",
 * says what that guarantees and what it does not.
 *
 * The primitive is HMAC-SHA256 (RFC 2104, lib/sha256.h) over the entry's
 * exact bytes and its object name, so an entry cannot be moved under
 * another key or architecture and keep its signature.  The signature is
 * a detached object beside the entry, "<key>-<cc>.sig", one line:
 *
 *     astra-cc-sig 1 hmac-sha256 <key id: 16 hex> <mac: 64 hex>
 *
 * The key id is the first 8 bytes of SHA-256 of the key, so that a
 * reader can say "signed with another key" without learning the key.
 * Older astra-cc versions ignore .sig objects; an entry is unchanged by
 * being signed.
 */
#ifndef ASTRA_SIGN_H
#define ASTRA_SIGN_H

#include <stddef.h>

#include "lib/buf.h"
#include "cache/storage.h"

/* "<key>-<cc>.sig" for entry object "<key>-<cc>.entry" (malloc'd). */
char *astra_sign_name(const char *entry_name);

/*
 * Load the key from path (the whole file, trailing white space removed;
 * at least 16 bytes).  Returns 0, or -1 with *why.  A key file that other
 * users may read is accepted with a warning in the log.
 */
int astra_sign_load_key(const char *path, struct astra_buf *key, const char **why);

/*
 * The signature line for entry `name` with bytes data[len] under key
 * (appended to out).
 */
void astra_sign_make(const struct astra_buf *key, const char *name, const void *data, size_t len,
		     struct astra_buf *out);

/*
 * Does sig[siglen] sign entry `name` with bytes data[len] under key?
 * 1 yes; 0 no, with *why ("malformed signature", "signed with another
 * key", "signature does not match").  The comparison takes the same time
 * wherever the MACs differ.
 */
int astra_sign_check(const struct astra_buf *key, const char *name, const void *data, size_t len,
		     const char *sig, size_t siglen, const char **why);

/* ---- What the store calls (the settings decide). ---- */

/*
 * Is entry `name` (bytes data[len], read from tier s) usable?  Without
 * `require_signature`: always 1, nothing is read.  With it: 1 when
 * s holds a signature that verifies under the key of `signing_key_file`;
 * otherwise 0, logged (why: unsigned, bad, another key, no key
 * configured) and counted (unsigned_entries).  sig, when not NULL,
 * receives the signature's bytes (empty when none was read), so that the
 * store can copy it with the entry.
 */
int astra_sign_verify_stored(struct astra_storage *s, const char *name, const void *data, size_t len,
			     struct astra_buf *sig);

/*
 * After entry `name` (data[len]) was put on tier s: put its signature
 * beside it.  sig non-empty: those bytes (a copy from another tier);
 * otherwise a new signature when `signing_key_file` is set, else
 * nothing.  Returns 0, or -1 (errno set: the put failed; a key file that
 * cannot be used is logged and returns 0, the entry staying unsigned).
 */
int astra_sign_store(struct astra_storage *s, const char *name, const void *data, size_t len,
		     const struct astra_buf *sig);

#endif
