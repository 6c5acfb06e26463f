/*
 * arch.h - GPU architecture names, parsed in one place.
 *
 * nvcc names architectures sm_90, sm_90a, sm_100f (real: SASS),
 * compute_90 (virtual: PTX), lto_90 (LTO-IR), and native, all, all-major
 * (resolved by nvcc itself).  Everything in astra-cc that reads such a
 * name (the command-line model, the key's targets, the launcher's choice,
 * the commands' --arch/--cc options, the verifier's flags) goes through
 * astra_arch_parse.
 */
#ifndef ASTRA_ARCH_H
#define ASTRA_ARCH_H

#include "lib/nvccopts.h"
#include "lib/vec.h"

enum astra_arch_kind {
	ASTRA_ARCH_NONE = 0,   /* not an architecture name */
	ASTRA_ARCH_SM,         /* sm_90, sm_90a */
	ASTRA_ARCH_COMPUTE,    /* compute_90 */
	ASTRA_ARCH_LTO,        /* lto_90 */
	ASTRA_ARCH_BARE,       /* 90 (only with ASTRA_ARCH_ALLOW_BARE) */
	ASTRA_ARCH_SPECIAL,    /* native, all, all-major: no fixed set */
};

struct astra_arch {
	enum astra_arch_kind kind;
	int cc;                /* 90; 0 for SPECIAL */
	char suffix;           /* 'a' or 'f' (sm_90a, sm_100f), else 0 */
};

enum astra_arch_flags {
	ASTRA_ARCH_ALLOW_BARE = 1 << 0,   /* accept "90" (the commands' --cc 90) */
};

/* Parse name; returns its kind (ASTRA_ARCH_NONE: not an architecture). */
enum astra_arch_kind astra_arch_parse(const char *name, unsigned flags, struct astra_arch *out);

/* The compute capability of sm_/compute_/lto_ names (90), else 0. */
int astra_arch_cc(const char *name);

/*
 * The targets a command compiles SASS for, one key each: "sm_90",
 * "sm_90a" for -arch=sm_90a, ... in order; "default" when no target option
 * is given (nvcc's default, which the nvcc version pins); a lone
 * -arch=compute_XX gives "compute_XX" (PTX only).  Returns 0, or -1 when
 * the set cannot be known from the command (native, all, all-major).
 */
int astra_arch_targets(const struct astra_cmdline *cl, struct astra_vec *out);

/*
 * The compute capabilities of every device pass and every target of a
 * command (90 for sm_90, sm_90a, compute_90, lto_90), in ccs[0..*nr).
 * Returns 0, or -1 when they cannot be known from the command (no target
 * option: nvcc's default; native, all, all-major) or more than max.
 */
int astra_arch_device_ccs(const struct astra_cmdline *cl, int *ccs, size_t max, size_t *nr);

/*
 * The compute capabilities named by the command's architecture options
 * (cl->archs), as decimal strings ("90"), sorted by first appearance and
 * unique, appended to out.  Returns -1 when some are not fixed (native,
 * all, all-major), else 0.
 */
int astra_arch_ccs(const struct astra_cmdline *cl, struct astra_vec *out);

#endif
