/*
 * verify-int.h - what the three files of the testing role share (inside
 * verify/ only): a run's candidates and its state (struct vctx), and the
 * functions one file calls in another.  verify.c: the entry, the work
 * directory, the GPU, ceilings, verdicts, JSON; verify-build.c: the
 * test program's flags and its compilation, a failure pinned on its
 * candidate; verify-run.c: running the program round after round, its
 * events, the GPU lock, the sanitizers.
 */
#ifndef ASTRA_VERIFY_VERIFY_INT_H
#define ASTRA_VERIFY_VERIFY_INT_H

#include "lib/buf.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "verify/harness.h"
#include "verify/screen.h"
#include "verify/verify.h"

enum phase { PH_CHECK = 1, PH_TIMING = 2, PH_POST = 4, PH_MISALIGNED = 8 };

/* A candidate while it is being judged. */
struct cand {
	struct astra_screened scr;
	const char *grid, *block, *shmem; /* the geometry it is launched with */
	char *own_grid, *own_block, *own_shmem; /* from the extract gate (owned) */
	int in_prog;                      /* version in the current program, 0 if not in it */
	int done;                         /* has its final verdict */
	int regs, spills;
};

struct vctx {
	const struct astra_tu *tu;
	const struct astra_kernel *k;
	const struct astra_cmdline *cl;
	const struct astra_verify_opts *o;
	struct astra_verify_result *res;
	struct cand *c;
	size_t n;
	char *dir;                /* work directory */
	int made_dir;
	int sandbox_noted;            /* said in the notes whether test programs ran sandboxed */
	char *stop_why;               /* which limit stopped the last run, or NULL */
	const char *src_path;
	struct astra_buf src;     /* the text of the file that defines the kernel */
	struct astra_harness_part *prefix; /* a header's kernel: what the TU has before it (harness.h) */
	size_t nr_prefix;
	int gpu_cc;               /* 0: no GPU seen */
	char *gpu_why;            /* why no GPU */
	struct astra_vec flags;   /* nvcc flags for test programs (without -o and input) */
	char *prog;               /* the compiled program */
	size_t *map;              /* version - 1 -> candidate index */
	size_t nmap;
	unsigned phases_done;
	int finished;             /* the main run completed every phase it had to */
	int ref_regs, ref_spills;
	struct astra_buf notes;
	unsigned long long seed;
};

void astra_verify_build_flags(struct vctx *c);
const char *astra_verify_cache_dir(const struct vctx *c);
int astra_verify_compile_round(struct vctx *c);
char *astra_verify_first_lines(const char *s, int n);
void astra_verify_note(struct vctx *c, const char *fmt, ...) ASTRA_PRINTF(2, 3);
void astra_verify_reject(struct vctx *c, size_t i, const char *check, const char *fmt, ...) ASTRA_PRINTF(4, 5);
int astra_verify_run_program(struct vctx *c, struct astra_vec *argv, size_t versions, const char *also_writable,
			     struct astra_buf *out, struct astra_buf *err, int *timed_out);
void astra_verify_run_round(struct vctx *c);
void astra_verify_run_sanitizers(struct vctx *c);

#endif
