/*
 * key.h - the kernel key: what a cached variant is valid for.
 *
 * A verified variant may only replace a kernel whose meaning is exactly
 * what it was verified against (DESIGN.md, invariant 2).  The key is an
 * XXH3-128 digest of a text made of labelled sections, like ccache's
 * hash_delimiter, so that a miss can be explained by diffing two texts
 * (the debug_key setting writes them beside the output):
 *
 *   format     this key layout's version (ASTRA_KEY_FORMAT)
 *   kernel     the kernel's tokens (comments and blanks do not count)
 *   pragma     the pragma's canonical text
 *   dep ...    each same-file function, macro, type or variable the kernel
 *              refers to, transitively, as tokens
 *   header ... the content hash of each header the kernel can see: project
 *              headers, -isystem and -idirafter libraries, the C++ and C
 *              libraries (front/includes.h); only the CUDA toolkit's own
 *              headers are left to the nvcc version
 *   host compiler  its version line (it preprocesses the device code)
 *   host compiler file  the identity of the file nvcc runs as the host
 *              compiler (compiler_check: by default its content, so a
 *              wrapper script or another build of one version changes it)
 *   flags      the device-affecting options and defines, in order,
 *              without the target options
 *   arch       the one target the variant is for ("sm_90", "sm_90a")
 *   nvcc       the output of `nvcc --version`
 *
 * Host code, unrelated kernels, comments and formatting are not in it, so
 * they do not invalidate anything.
 */
#ifndef ASTRA_KEY_H
#define ASTRA_KEY_H

#include "lib/buf.h"
#include "lib/nvccopts.h"
#include "front/kernel.h"

/* Bump when the sections change: every old key becomes a miss. */
#define ASTRA_KEY_FORMAT 3

struct astra_key {
	unsigned char hash[16];   /* XXH3-128, canonical (big-endian) byte order */
	char hex[33];             /* the same as 32 lowercase hex digits */
};

/*
 * The text the key hashes, for kernel k of tu (k may live in a header of
 * tu), compiled by command cl for target arch, with nvcc's version text.
 * Appends to text.  Returns 0, or -1 (logged) when the key would not cover
 * everything the kernel can see: tu was extracted without a complete
 * search path (tu->search, with the host compiler known), or the header
 * scan was truncated.  Such a key must not be used.
 */
int astra_key_text(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		   const char *arch, const char *nvcc_version, struct astra_buf *text);

/*
 * Compute the key.  text (may be NULL) receives the hashed text as
 * astra_key_text() appends it.  Returns astra_key_text()'s answer: on -1
 * out is filled but must not be used for a lookup or a store.
 */
int astra_key_compute(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		      const char *arch, const char *nvcc_version, struct astra_key *out, struct astra_buf *text);

/* Digest of any text, as a key (used for header contents too). */
void astra_key_digest(const void *data, size_t len, struct astra_key *out);

/*
 * `nvcc --version` of the nvcc binary at path, into out.  The answer is
 * remembered in <cache_dir>/nvcc-version/, keyed by the binary's path,
 * size, modification time and inode, so that a cache hit does not run
 * nvcc twice.  cache_dir may be NULL (no remembering).  Returns 0, or -1
 * (logged) when nvcc cannot run.
 */
int astra_key_nvcc_version(const char *nvcc, const char *cache_dir, struct astra_buf *out);

/*
 * The debug_key file: write text to <output>.astra-key.txt (replacing
 * it), atomically.  Returns 0 or -1 (logged).
 */
int astra_key_write_debug(const char *output, const char *text);

#endif
