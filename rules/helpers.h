/*
 * helpers.h - the __device__ helper functions that rewritten kernels call.
 *
 * Vector loads and stores, alignment tests and warp/block reductions are
 * the same few lines in every variant, so rules emit calls and record in
 * struct astra_rk.helpers which helpers the text needs; the variant's text
 * gets their definitions in front of the kernel when it is finished.
 *
 * Helper names contain ASTRA_SFX, a placeholder that astra_rk_finish()
 * replaces with a hash of the variant, so two variants (two candidates in
 * one test program, two kernels of one TU) never define the same name.
 */
#ifndef ASTRA_HELPERS_H
#define ASTRA_HELPERS_H

#include "lib/buf.h"

#define ASTRA_SFX "ASTRASFX"
/* A helper's name as kernels call it: "astra_" ASTRA_SFX "_" name. */
#define ASTRA_HELPER(name) "astra_" ASTRA_SFX "_" name

/*
 * Reductions come in one flavour per combining function so that a rewrite
 * combines values exactly as the original did (fmaxf keeps fmaxf's NaN
 * rules, max keeps max's).
 */
enum astra_combine {
	COMBINE_SUM,   /* a + b */
	COMBINE_FMAXF, /* fmaxf(a, b) */
	COMBINE_FMINF, /* fminf(a, b) */
	COMBINE_MAX,   /* max(a, b) */
	COMBINE_MIN,   /* min(a, b) */
	COMBINE__COUNT
};

enum astra_helper {
	/* astra_X_ld<BYTES>(dst, src), _ldg<BYTES>, _st<BYTES>(dst, src), _al(ptr, align) */
	HELPER_VEC = 1 << 0,
	/* astra_X_tanh(float): tanh.approx.f32 (sm_75 and later) */
	HELPER_TANH = 1 << 1,
	/* astra_X_wred_<c>(v): all-reduce over a full warp, every lane gets it */
	HELPER_WARP = 1 << 2,       /* shifted left by the combine: HELPER_WARP << c */
	/* astra_X_bred_<c>(v): all-reduce over a 1-D block of any size */
	HELPER_BLOCK = 1 << (2 + COMBINE__COUNT),
	/* astra_X_unpack<N>(float *, const T *), astra_X_pack<N>(T *, const float *): scalar conversions */
	HELPER_H2 = 1 << (2 + 2 * COMBINE__COUNT),
	/* ... and their pairwise overloads for __half / __nv_bfloat16 (only for types the TU has) */
	HELPER_H2_HALF = 1 << (3 + 2 * COMBINE__COUNT),
	HELPER_H2_BF16 = 1 << (4 + 2 * COMBINE__COUNT),
	/* astra_X_wargmax(v, i) / astra_X_bargmax(v, i): argmax over a warp / a 1-D block, in place */
	HELPER_WARGMAX = 1 << (5 + 2 * COMBINE__COUNT),
	HELPER_BARGMAX = 1 << (6 + 2 * COMBINE__COUNT),
	/*
	 * astra_X_wonline(m, s) / astra_X_bonline(m, s): merge each thread's
	 * (maximum, sum of exp(x - maximum)) pair over a warp / a 1-D block, in
	 * place: the online softmax's combination.
	 */
	HELPER_WONLINE = 1 << (7 + 2 * COMBINE__COUNT),
	HELPER_BONLINE = 1 << (8 + 2 * COMBINE__COUNT),
};

#define HELPER_WARP_OF(c) (HELPER_WARP << (c))
#define HELPER_BLOCK_OF(c) (HELPER_BLOCK << (c))

/* "sum", "fmaxf", ...: the suffix of the reduction helpers' names. */
const char *astra_combine_name(enum astra_combine c);
/* The combining function applied to two C++ expressions, into out. */
void astra_combine_expr(enum astra_combine c, const char *a, const char *b, struct astra_buf *out);

/* Append the definitions of the helpers in set to out. */
void astra_helpers_text(unsigned set, struct astra_buf *out);

#endif
