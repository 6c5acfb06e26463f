/*
 * verify.c - the testing role: screen, generate, compile, run, judge
 * (see verify.h; the protocol is in doc/verify.md).
 *
 * This file owns the processes: nvcc on the generated program, the program
 * itself (in a child with a time limit, again and again until every
 * candidate has a verdict: a candidate that crashes or hangs takes the
 * process down with it, so it is rejected and the program re-runs without
 * it), and compute-sanitizer.  The program reports JSON lines; reading them
 * and turning them into verdicts with evidence is the rest of this file.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verify/profile.h"
#include "verify/verify.h"
#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/trust.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "lib/workspace.h"
#include "verify/device.h"
#include "verify/gpu.h"
#include "cache/store.h"
#include "front/extract.h"
#include "front/types.h"
#include "verify/harness.h"
#include "verify/sandbox.h"
#include "verify/screen.h"

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

const char *astra_cand_verdict_name(enum astra_cand_verdict v)
{
	switch (v) {
	case ASTRA_CAND_ACCEPTED: return "accepted";
	case ASTRA_CAND_REJECTED: return "rejected";
	default: return "not-run";
	}
}

static void note(struct vctx *c, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void note(struct vctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(&c->notes, fmt, ap);
	va_end(ap);
	astra_buf_addch(&c->notes, '\n');
}

static void reject(struct vctx *c, size_t i, const char *check, const char *fmt, ...) ASTRA_PRINTF(4, 5);
static void reject(struct vctx *c, size_t i, const char *check, const char *fmt, ...)
{
	struct astra_cand_result *r = &c->res->cands[i];
	va_list ap;
	if (c->c[i].done)
		return;
	c->c[i].done = 1;
	r->verdict = ASTRA_CAND_REJECTED;
	r->check = check;
	va_start(ap, fmt);
	free(r->reason);
	r->reason = xvasprintf(fmt, ap);
	va_end(ap);
	astra_trace(ASTRA_TRACE_VERIFY, "%s: rejected (%s): %s", r->name, check, r->reason);
}

/* ------------------------------------------------------------- work dir */

static int make_workdir(struct vctx *c)
{
	/* Verifications killed with SIGKILL left theirs: a day later they go. */
	astra_workspace_sweep(ASTRA_VERIFY_WORKSPACE, ASTRA_WORKSPACE_STALE);
	c->dir = astra_workspace_make(ASTRA_VERIFY_WORKSPACE);
	if (!c->dir)
		return -1;
	c->made_dir = 1;
	return 0;
}

static void remove_workdir(struct vctx *c)
{
	if (!c->dir || !c->made_dir)
		return;
	astra_workspace_remove(c->dir);
}

/* ------------------------------------------------------------- the GPU */

/* The compute capability of GPU 0, or 0 (with c->gpu_why) when there is none. */
static int probe_gpu(struct vctx *c)
{
	struct astra_gpu g;
	if (astra_gpu_probe(c->o->nvcc, &g))
		return g.cc;
	c->gpu_why = xstrdup(g.why);
	return 0;
}

/* -------------------------------------------------------------- compiling */

/*
 * The directory of file (the original's, or one before it in the compile
 * unit) for the program's quoted includes, as gcc's -iquote.  nvcc pastes -Xcompiler values into a shell command unquoted
 * (and splits them at commas), so the directory's own name would be run
 * by that shell: "my proj" splits in two, "(" is a syntax error, "$(...)"
 * runs a command.  It is reached through a link in the workspace instead
 * (the workspace's path is shell-safe: lib/workspace.h).  Its own -I, an
 * argument nvcc quotes itself, is no way out: nvcc puts it in double
 * quotes, where a shell still expands `$` and backquotes, and -I would
 * also change where <x> includes are found.  The first directory's link
 * is ASTRA_VERIFY_SRCDIR_LINK, the nth further one's that name with
 * "-<n>"; a directory seen holds already is not added again.
 */
static void quote_dir(struct vctx *c, const char *file, struct astra_vec *seen)
{
	char *copy = xstrdup(file), *slash = strrchr(copy, '/');
	const char *dir = slash ? (*slash = '\0', copy) : ".";
	char *abs = realpath(dir, NULL);
	char *link;
	const char *use = NULL;
	size_t i;
	for (i = 0; abs && i < seen->nr; i++)
		if (!strcmp(seen->v[i], abs)) {
			free(abs);
			free(copy);
			return;
		}
	if (!seen->nr)
		link = xasprintf("%s/" ASTRA_VERIFY_SRCDIR_LINK, c->dir);
	else
		link = xasprintf("%s/" ASTRA_VERIFY_SRCDIR_LINK "-%zu", c->dir, seen->nr);
	if (abs)
		astra_vec_push(seen, abs);
	if (!abs) {
		note(c, "cannot resolve %s (%s): the test program's quoted includes are not looked for there", dir,
		     strerror(errno));
	} else if (symlink(abs, link) == 0 || (errno == EEXIST && unlink(link) == 0 && symlink(abs, link) == 0)) {
		use = link;
	} else if (astra_workspace_shell_safe(abs) && !strchr(abs, ',')) {
		use = abs;
	} else {
		note(c, "cannot link %s to %s (%s), whose name nvcc's shell would change: the test program's quoted "
		     "includes are not looked for there", link, abs, strerror(errno));
	}
	if (use) {
		astra_trace(ASTRA_TRACE_VERIFY, "quoted includes: %s (%s)", use, abs);
		astra_vec_push(&c->flags, "-Xcompiler");
		astra_vec_pushf(&c->flags, "-iquote,%s", use);
	}
	free(abs);
	free(link);
	free(copy);
}

/*
 * The flags of a test-program compile: the TU's preprocessor flags, the
 * device-code flags that change what the kernel computes (fast math,
 * -O, -Xptxas, ...), the GPU's architecture, and the original's directory
 * for quoted includes (the program lives elsewhere).
 */
static void build_flags(struct vctx *c)
{
	const struct astra_cmdline *cl = c->cl;
	struct astra_vec seen = ASTRA_VEC_INIT;
	size_t i;
	int cc = c->o->cc ? c->o->cc : c->gpu_cc;

	astra_vec_init(&c->flags);
	if (cl)
		for (i = 0; i < cl->preproc_flags.nr; i++)
			astra_vec_push(&c->flags, cl->preproc_flags.v[i]);
	if (cl)
		for (i = 0; i < cl->device_flags.nr; i++) {
			const char *f = cl->device_flags.v[i];
			char *name = xstrndup(f, strcspn(f, "="));
			const struct astra_nvcc_opt *opt = astra_nvccopt_find(name);
			free(name);
			if (!opt || (opt->flags & (OPT_PREPROC | OPT_ARCH | OPT_PHASE | OPT_DEPS | OPT_OUTPUT |
						   OPT_OPTFILE)))
				continue;
			astra_vec_push(&c->flags, f);
		}
	if (cc) {
		/* The GPU's exact arch; keep an arch-specific spelling (sm_90a) the TU asked for. */
		const char *pick = NULL;
		char *want = xasprintf("sm_%d", cc);
		/* The TU's own sm_90a (or sm_100f) when it names one for this GPU. */
		for (i = 0; cl && i < cl->archs.nr; i++) {
			struct astra_arch a;
			if (astra_arch_parse(cl->archs.v[i], 0, &a) == ASTRA_ARCH_SM && a.cc == cc && a.suffix)
				pick = cl->archs.v[i];
		}
		astra_vec_pushf(&c->flags, "-arch=%s", pick ? pick : want);
		free(want);
	} else if (cl) {
		/* No GPU: compile for what the TU compiles for, to check it builds. */
		for (i = 0; i < cl->archs.nr; i++) {
			const char *a = cl->archs.v[i];
			enum astra_arch_kind k = astra_arch_parse(a, 0, NULL);
			if (k == ASTRA_ARCH_SM || k == ASTRA_ARCH_COMPUTE) {
				astra_vec_pushf(&c->flags, "-arch=%s", a);
				break;
			}
		}
	}
	quote_dir(c, c->src_path, &seen);
	/*
	 * A header's kernel: the directories of the files before it (the
	 * TU's), after the header's own, for their quoted includes.
	 */
	for (i = 0; i < c->nr_prefix; i++)
		quote_dir(c, c->prefix[i].path, &seen);
	astra_vec_clear(&seen);
	astra_vec_push(&c->flags, "-lineinfo");
	astra_vec_push(&c->flags, "-Xptxas");
	astra_vec_push(&c->flags, "-v");
	astra_vec_push(&c->flags, "-Wno-deprecated-gpu-targets");
}

static char *name_of(const struct vctx *c, size_t i)
{
	return c->res->cands[i].name;
}

/* Generate the program for candidates sel[0..nsel) as dir/<tag>.cu and compile it. */
static int build(struct vctx *c, const size_t *sel, size_t nsel, const char *tag, struct astra_buf *log,
		 char **prog, int final)
{
	struct astra_harness h;
	struct astra_harness_cand *hc = xcalloc(nsel ? nsel : 1, sizeof(*hc));
	struct astra_buf text = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_vec argv = ASTRA_VEC_INIT;
	struct astra_run_opts ro = { 0 };
	char *src = xasprintf("%s/%s.cu", c->dir, tag);
	char *bin = xasprintf("%s/%s", c->dir, tag);
	size_t i;
	int rc;
	FILE *f;

	for (i = 0; i < nsel; i++) {
		struct cand *cd = &c->c[sel[i]];
		hc[i].name = name_of(c, sel[i]);
		hc[i].text = cd->scr.text;
		hc[i].grid = cd->grid;
		hc[i].block = cd->block;
		hc[i].shmem = cd->shmem;
	}
	memset(&h, 0, sizeof(h));
	h.kernel = c->k;
	h.src_path = c->src_path;
	h.src_text = c->src.buf;
	h.src_len = c->src.len;
	h.prefix = c->prefix;
	h.nr_prefix = c->nr_prefix;
	h.cands = hc;
	h.nr_cands = nsel;
	if (astra_harness_generate(&h, &text, &why) < 0) {
		astra_buf_addf(log, "%s\n", why.buf);
		rc = 2;
		goto out;
	}
	f = fopen(src, "w");
	if (!f || fwrite(text.buf, 1, text.len, f) != text.len || fclose(f) != 0) {
		rc = error("cannot write %s: %s", src, strerror(errno));
		goto out;
	}
	astra_vec_push(&argv, c->o->nvcc);
	astra_vec_push(&argv, "-o");
	astra_vec_push(&argv, bin);
	astra_vec_push(&argv, src);
	astra_vec_pushv(&argv, c->flags.v, c->flags.nr);
	if (final) {
		struct astra_buf r = ASTRA_BUF_INIT;
		for (i = 0; i < argv.nr; i++) {
			if (i)
				astra_buf_addch(&r, ' ');
			astra_buf_add_shell_quoted(&r, argv.v[i]);
		}
		free(c->res->reproduce);
		c->res->reproduce = astra_buf_detach(&r, NULL);
	}
	ro.out = log;
	ro.err = log;
	ro.timeout = 600;
	{
		double t0 = astra_now();
		rc = astra_run(argv.v, &ro);
		c->res->compile_seconds += astra_now() - t0;
	}
	if (rc < 0)
		goto out;
	if (ro.timed_out) {
		astra_buf_adds(log, "nvcc: timed out after 600 s\n");
		rc = 1;
	} else {
		rc = rc != 0;
	}
	if (!rc) {
		*prog = bin;
		bin = NULL;
	}
out:
	astra_vec_clear(&argv);
	astra_buf_release(&text);
	astra_buf_release(&why);
	free(hc);
	free(src);
	free(bin);
	return rc;
}

static int rank(const char *what)
{
	return !strcmp(what, "compile") ? 3 : !strcmp(what, "geometry") ? 2 : 1;
}

/* Does line start with "<file>(" or "<file>:" ? */
static int names_file(const char *line, const char *file)
{
	size_t n = strlen(file);
	return !strncmp(line, file, n) && (line[n] == '(' || line[n] == ':');
}

/*
 * Give each compiler error to the candidate it is about: errors inside a
 * candidate's text, its launcher (the signature check) or its geometry,
 * and ptxas messages naming astra_cand_<i>.  Returns how many candidates
 * were rejected.
 */
static size_t attribute(struct vctx *c, const size_t *sel, size_t nsel, const char *log)
{
	const char *line = log;
	size_t rejected = 0, i;
	struct astra_buf *msgs = xcalloc(nsel ? nsel : 1, sizeof(*msgs));
	const char **check = xcalloc(nsel ? nsel : 1, sizeof(*check));
	char **lf = xcalloc(nsel ? nsel : 1, sizeof(char *)), **gf = xcalloc(nsel ? nsel : 1, sizeof(char *));

	for (i = 0; i < nsel; i++) {
		astra_buf_init(&msgs[i], 0);
		lf[i] = astra_harness_launcher_file(name_of(c, sel[i]));
		gf[i] = astra_harness_geometry_file(name_of(c, sel[i]));
	}
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char *l = xstrndup(line, len);
		long who = -1;
		const char *what = NULL;
		if (strstr(l, "error")) {
			const char *ac = strstr(l, "astra_cand_");
			for (i = 0; i < nsel && who < 0; i++) {
				if (names_file(l, lf[i])) {
					who = (long)i;
					what = "signature";
				} else if (names_file(l, gf[i])) {
					who = (long)i;
					what = "geometry";
				}
			}
			for (i = 0; i < nsel && who < 0; i++)
				if (names_file(l, name_of(c, sel[i]))) {
					who = (long)i;
					what = "compile";
				}
			if (who < 0 && ac) {
				/* ptxas names the mangled function: ...astra_cand_<i>... */
				long v = strtol(ac + strlen("astra_cand_"), NULL, 10);
				if (v >= 0 && (size_t)v < nsel) {
					who = v;
					what = "compile";
				}
			}
		}
		if (who >= 0) {
			const char *ctx = eol ? eol + 1 : NULL;
			int k;
			/* An error in the text explains the rest; then geometry; then the signature. */
			if (!check[who] || rank(what) > rank(check[who]))
				check[who] = what;
			if (msgs[who].len < 4000) {
				astra_buf_addf(&msgs[who], "%s\n", l);
				/* The source excerpt and caret EDG prints below an error. */
				for (k = 0; k < 2 && ctx && *ctx && (*ctx == ' ' || *ctx == '\t'); k++) {
					const char *e2 = strchr(ctx, '\n');
					astra_buf_add(&msgs[who], ctx, e2 ? (size_t)(e2 - ctx + 1) : strlen(ctx));
					ctx = e2 ? e2 + 1 : NULL;
				}
			}
		}
		free(l);
		line = eol ? eol + 1 : NULL;
	}
	for (i = 0; i < nsel; i++) {
		if (check[i]) {
			struct astra_cand_result *r = &c->res->cands[sel[i]];
			const char *first_nl;
			char *first;
			astra_buf_rtrim(&msgs[i]);
			first_nl = strchr(msgs[i].buf, '\n');
			first = xstrndup(msgs[i].buf, first_nl ? (size_t)(first_nl - msgs[i].buf) : msgs[i].len);
			if (!strcmp(check[i], "signature"))
				reject(c, sel[i], "signature", "does not keep the kernel's name and signature (it must "
				       "define __global__ %s with the original's parameter types): %s", c->k->name, first);
			else if (!strcmp(check[i], "geometry"))
				reject(c, sel[i], "geometry", "its launch geometry does not compile (expressions may use "
				       "only the kernel's parameter names): %s", first);
			else
				reject(c, sel[i], "compile", "does not compile: %s", first);
			free(r->compile_log);
			r->compile_log = astra_buf_detach(&msgs[i], NULL);
			free(first);
			rejected++;
		}
		astra_buf_release(&msgs[i]);
		free(lf[i]);
		free(gf[i]);
	}
	free(msgs);
	free(check);
	free(lf);
	free(gf);
	return rejected;
}

static char *first_lines(const char *s, int n)
{
	const char *p = s;
	while (n-- > 0 && p && *p) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return p ? xstrndup(s, (size_t)(p - s)) : xstrdup(s);
}

/* "ptxas info : Used 32 registers" after "Compiling entry function '...'". */
static void parse_ptxas(struct vctx *c, const char *log)
{
	const char *p = log;
	long cur = -2; /* -1 reference, >=0 version-1, -2 other */
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		char *l = xstrndup(p, eol ? (size_t)(eol - p) : strlen(p));
		const char *f = strstr(l, "Compiling entry function '");
		if (f) {
			const char *ac = strstr(f, "astra_cand_");
			if (ac)
				cur = strtol(ac + strlen("astra_cand_"), NULL, 10);
			else if (strstr(f, "astra_rt"))
				cur = -2;
			else if (strstr(f, c->k->name))
				cur = -1;
			else
				cur = -2;
		} else if (cur > -2) {
			const char *u = strstr(l, "Used ");
			const char *s = strstr(l, "bytes spill stores");
			int *regs = NULL, *spills = NULL;
			if (cur == -1) {
				regs = &c->ref_regs;
				spills = &c->ref_spills;
			} else if ((size_t)cur < c->nmap) {
				regs = &c->c[c->map[cur]].regs;
				spills = &c->c[c->map[cur]].spills;
			}
			if (regs && u && strstr(u, "registers")) {
				int v = atoi(u + 5);
				if (v > *regs)
					*regs = v;
			}
			if (spills && s) {
				/* "..., N bytes spill stores, M bytes spill loads" */
				const char *q = s;
				while (q > l && q[-1] == ' ')
					q--;
				while (q > l && q[-1] >= '0' && q[-1] <= '9')
					q--;
				if (atoi(q) > *spills)
					*spills = atoi(q);
			}
		}
		free(l);
		p = eol ? eol + 1 : NULL;
	}
}

/* Compile the round: drop candidates the compiler rejects, one way or another. */
static int compile_round(struct vctx *c)
{
	size_t *sel = xcalloc(c->n + 1, sizeof(*sel)), nsel, i, round;
	struct astra_buf log = ASTRA_BUF_INIT;
	int rc = -1;

	for (round = 0; round < c->n + 3; round++) {
		nsel = 0;
		for (i = 0; i < c->n; i++)
			if (!c->c[i].done)
				sel[nsel++] = i;
		astra_buf_reset(&log);
		free(c->prog);
		c->prog = NULL;
		rc = build(c, sel, nsel, "astra-test", &log, &c->prog, 1);
		if (rc < 0)
			break;
		if (rc == 0) {
			free(c->map);
			c->map = xcalloc(nsel + 1, sizeof(*c->map));
			c->nmap = nsel;
			for (i = 0; i < nsel; i++) {
				c->map[i] = sel[i];
				c->c[sel[i]].in_prog = (int)i + 1;
			}
			parse_ptxas(c, log.buf);
			c->res->compiled = 1;
			break;
		}
		if (rc == 2) {
			/* The pragma cannot describe a test: nobody can be judged. */
			astra_buf_rtrim(&log);
			c->res->not_run = xasprintf("cannot generate a test program: %s", log.buf);
			c->res->setup_check = "pragma";
			rc = 0;
			break;
		}
		if (attribute(c, sel, nsel, log.buf))
			continue;
		/* Unattributed: is it the original, or a candidate the messages do not name? */
		{
			struct astra_buf one = ASTRA_BUF_INIT;
			char *p = NULL;
			int r0 = build(c, NULL, 0, "astra-ref", &one, &p, 0);
			free(p);
			if (r0 != 0) {
				char *head;
				astra_buf_rtrim(&one);
				head = first_lines(one.buf, 12);
				c->res->not_run = xasprintf("the test program does not compile even without candidates "
							    "(the original kernel, or the pragma's expressions):\n%s", head);
				c->res->setup_check = "compile";
				free(head);
				astra_buf_release(&one);
				rc = 0;
				break;
			}
			for (i = 0; i < nsel; i++) {
				astra_buf_reset(&one);
				p = NULL;
				if (build(c, &sel[i], 1, "astra-one", &one, &p, 0) != 0 &&
				    !attribute(c, &sel[i], 1, one.buf)) {
					char *head;
					astra_buf_rtrim(&one);
					head = first_lines(one.buf, 12);
					reject(c, sel[i], "compile", "does not compile in the test program:\n%s", head);
					free(c->res->cands[sel[i]].compile_log);
					c->res->cands[sel[i]].compile_log = xstrdup(one.buf);
					free(head);
				}
				free(p);
			}
			astra_buf_release(&one);
		}
	}
	astra_buf_release(&log);
	free(sel);
	return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- running */

static const char *phase_names(unsigned ph, struct astra_buf *b)
{
	astra_buf_reset(b);
	if (ph & PH_CHECK)
		astra_buf_adds(b, "check,");
	if (ph & PH_TIMING)
		astra_buf_adds(b, "timing,");
	if (ph & PH_POST)
		astra_buf_adds(b, "post,");
	if (ph & PH_MISALIGNED)
		astra_buf_adds(b, "misaligned,");
	if (b->len)
		astra_buf_setlen(b, b->len - 1);
	return b->buf;
}

static unsigned phase_bit(const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "check"))
		return PH_CHECK;
	if (!strcmp(s, "timing"))
		return PH_TIMING;
	if (!strcmp(s, "post"))
		return PH_POST;
	if (!strcmp(s, "misaligned"))
		return PH_MISALIGNED;
	return 0;
}

/* PH_CHECK .. PH_MISALIGNED as 0 .. 3 (struct astra_verify_result's phase_seconds). */
static size_t phase_index(unsigned bit)
{
	size_t i = 0;
	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

/* The candidate index of program version v, or -1 (the reference, or unknown). */
static long cand_of(const struct vctx *c, double v)
{
	long vi = (long)v;
	if (vi < 1 || (size_t)vi > c->nmap)
		return -1;
	return (long)c->map[vi - 1];
}

static void ensure_cases(struct vctx *c, size_t n)
{
	size_t i;
	if (c->res->nr_cases >= n)
		return;
	c->res->labels = xrealloc(c->res->labels, n * sizeof(char *));
	c->res->bytes = xrealloc(c->res->bytes, n * sizeof(double));
	c->res->flops = xrealloc(c->res->flops, n * sizeof(double));
	c->res->written = xrealloc(c->res->written, n * sizeof(double));
	c->res->baseline = xrealloc(c->res->baseline, n * sizeof(struct astra_case_result));
	c->res->dims = xrealloc(c->res->dims, n * sizeof(struct astra_case_dims));
	c->res->tolerances = xrealloc(c->res->tolerances, n * sizeof(char *));
	for (i = c->res->nr_cases; i < n; i++) {
		memset(&c->res->dims[i], 0, sizeof(struct astra_case_dims));
		c->res->labels[i] = xstrdup("");
		c->res->tolerances[i] = NULL;
		c->res->bytes[i] = c->res->flops[i] = c->res->written[i] = 0;
		memset(&c->res->baseline[i], 0, sizeof(struct astra_case_result));
		c->res->baseline[i].prof.regs = c->res->baseline[i].prof.spills = -1;
	}
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *r = &c->res->cands[i];
		size_t j;
		r->cases = xrealloc(r->cases, n * sizeof(struct astra_case_result));
		for (j = c->res->nr_cases; j < n; j++) {
			memset(&r->cases[j], 0, sizeof(struct astra_case_result));
			r->cases[j].prof.regs = r->cases[j].prof.spills = -1;
		}
	}
	c->res->nr_cases = n;
}

static void set_dim(struct astra_case_dims *d, const char *name, double v)
{
	size_t i;
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->names[i], name)) {
			d->values[i] = v;
			return;
		}
	d->names = xrealloc(d->names, (d->nr + 1) * sizeof(char *));
	d->values = xrealloc(d->values, (d->nr + 1) * sizeof(double));
	d->names[d->nr] = xstrdup(name);
	d->values[d->nr++] = v;
}

int astra_verify_dim(const struct astra_verify_result *res, size_t ci, const char *name, double *value)
{
	size_t i;
	if (!res->dims || ci >= res->nr_cases)
		return 0;
	for (i = 0; i < res->dims[ci].nr; i++)
		if (!strcmp(res->dims[ci].names[i], name)) {
			*value = res->dims[ci].values[i];
			return 1;
		}
	return 0;
}

static struct astra_case_result *case_of(struct vctx *c, long cand, double ci)
{
	long i = (long)ci;
	if (i < 0 || (size_t)i >= c->res->nr_cases)
		return NULL;
	return cand < 0 ? &c->res->baseline[i] : &c->res->cands[cand].cases[i];
}

static char *case_desc(struct vctx *c, const struct astra_json *e)
{
	long ci = (long)astra_json_get_num(e, "case", -1);
	const char *label = ci >= 0 && (size_t)ci < c->res->nr_cases ? c->res->labels[ci] : "?";
	const char *phase = astra_json_get_str(e, "phase");
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_addf(&b, "case %ld (%s)", ci, label);
	if (phase)
		astra_buf_addf(&b, ", %s phase", phase);
	if (astra_json_get(e, "trial") && astra_json_get_num(e, "trial", -1) >= 0)
		astra_buf_addf(&b, ", trial %d", (int)astra_json_get_num(e, "trial", 0));
	if (astra_json_get_str(e, "dist"))
		astra_buf_addf(&b, ": %s inputs, outputs %s", astra_json_get_str(e, "dist"),
			       astra_json_get_bool(e, "poison", 0) ? "poisoned" : "pre-filled with random data");
	if (astra_json_get_num(e, "misalign", 0) > 0)
		astra_buf_addf(&b, ", %s base pointers off by one element",
			       astra_json_get_num(e, "misalign", 0) == 1 ? "all" : "every other");
	if (astra_json_get(e, "dist"))
		astra_buf_addf(&b, "; --seed %llu reproduces it", c->seed);
	return astra_buf_detach(&b, NULL);
}

static const char *jstr(const struct astra_json *e, const char *k)
{
	const char *s = astra_json_get_str(e, k);
	return s ? s : "?";
}

/* A value from the program: numbers, or "nan"/"inf" as strings. */
static void add_value(struct astra_buf *b, const struct astra_json *e, const char *k)
{
	const struct astra_json *v = astra_json_get(e, k);
	if (astra_json_is_string(v))
		astra_buf_adds(b, astra_json_str(v));
	else
		astra_buf_addf(b, "%.9g", astra_json_num(v, 0));
}

/* Turn a "fail" event into a rejection with its evidence. */
static void on_fail(struct vctx *c, const struct astra_json *e)
{
	long ci = cand_of(c, astra_json_get_num(e, "version", -1));
	const char *check = jstr(e, "check");
	char *where = case_desc(c, e);
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *buf = jstr(e, "buffer");
	long long elem = (long long)astra_json_get_num(e, "element", -1);
	long long lanes = (long long)astra_json_get_num(e, "lanes", 0);
	long long bad = (long long)astra_json_get_num(e, "bad", 0);
	static const char *const checks[] = { "mismatch", "unwritten", "nonfinite", "extra-write", "stale",
					      "nondeterministic", "input-modified", "out-of-bounds", "launch" };
	const char *stable = "mismatch";
	size_t i;

	if (ci < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		if (!strcmp(check, checks[i]))
			stable = checks[i];

	if (!strcmp(check, "input-modified")) {
		astra_buf_addf(&b, "modifies input `%s` (first change at element %lld)", buf, elem);
	} else if (!strcmp(check, "out-of-bounds")) {
		astra_buf_addf(&b, "writes outside `%s[%.0f]`, at element %lld", buf,
			       astra_json_get_num(e, "count", 0), elem);
	} else if (!strcmp(check, "launch")) {
		astra_buf_addf(&b, "cannot be launched: %s (%s)", jstr(e, "error"), jstr(e, "message"));
	} else if (!strcmp(check, "nondeterministic")) {
		astra_buf_addf(&b, "two runs on the same inputs (different buffers) differ in `%s`: %lld of %lld "
			       "values, first at element %lld: ", buf, bad, lanes, elem);
		add_value(&b, e, "expected");
		astra_buf_adds(&b, " then ");
		add_value(&b, e, "got");
		astra_buf_adds(&b, astra_json_get_bool(e, "reference_deterministic", 1)
			       ? " (the original is bit-for-bit deterministic: a race, or uninitialized memory?)"
			       : " (beyond the tolerance; the original itself varies)");
	} else {
		static const struct { const char *check, *what; } say[] = {
			{ "unwritten", "values left unwritten (they still hold what was there before the call)" },
			{ "nonfinite", "NaN or Inf values where the original's are finite" },
			{ "extra-write", "values written where the original leaves the buffer untouched" },
			{ "stale", "values that repeat the previous call's results (kept between calls?)" },
			{ "mismatch", "values differ beyond the tolerance" },
		};
		const char *what = say[4].what;
		struct astra_cand_result *r = &c->res->cands[ci];
		for (i = 0; i < ARRAY_SIZE(say); i++)
			if (!strcmp(check, say[i].check))
				what = say[i].what;
		if (!strcmp(check, "mismatch") && !c->c[ci].done) { /* the first failure is the one reported */
			r->mismatch_output = xstrdup(buf);
			r->mismatch_ratio = astra_json_get_num(e, "max_ratio", 0);
			r->mismatch_rtol = astra_json_get_num(e, "rtol", 0);
			r->mismatch_atol = astra_json_get_num(e, "atol", 0);
		}
		astra_buf_addf(&b, "`%s`: %lld of %lld %s; first at %s[%lld]: expected ", buf, bad, lanes, what, buf,
			       elem);
		add_value(&b, e, "expected");
		astra_buf_adds(&b, ", got ");
		add_value(&b, e, "got");
		astra_buf_addf(&b, "; largest error %.3g (%.3g relative, %.3g x the tolerance rtol=%.3g atol=%.3g x rms %.3g)",
			       astra_json_get_num(e, "max_abs", 0), astra_json_get_num(e, "max_rel", 0),
			       astra_json_get_num(e, "max_ratio", 0), astra_json_get_num(e, "rtol", 0),
			       astra_json_get_num(e, "atol", 0), astra_json_get_num(e, "scale", 1));
	}
	astra_buf_addf(&b, " [%s]", where);
	reject(c, (size_t)ci, stable, "%s", b.buf);
	free(where);
	astra_buf_release(&b);
}

static void on_time(struct vctx *c, const struct astra_json *e)
{
	double v = astra_json_get_num(e, "version", -1);
	long ci = v == 0 ? -1 : cand_of(c, v);
	struct astra_case_result *r;
	if (v != 0 && ci < 0)
		return;
	r = case_of(c, ci, astra_json_get_num(e, "case", -1));
	if (!r)
		return;
	r->timed = 1;
	r->timing.median = astra_json_get_num(e, "median_us", 0);
	r->timing.q25 = astra_json_get_num(e, "q25_us", 0);
	r->timing.q75 = astra_json_get_num(e, "q75_us", 0);
	r->timing.min = astra_json_get_num(e, "min_us", 0);
	r->timing.reps = (int)astra_json_get_num(e, "reps", 0);
}

static void on_passed(struct vctx *c, const struct astra_json *e)
{
	long ci = cand_of(c, astra_json_get_num(e, "version", -1));
	struct astra_case_result *r;
	if (ci < 0)
		return;
	r = case_of(c, ci, astra_json_get_num(e, "case", -1));
	if (!r)
		return;
	r->trials += (int)astra_json_get_num(e, "trials", 0);
	if (astra_json_get_num(e, "max_abs", 0) > r->max_abs)
		r->max_abs = astra_json_get_num(e, "max_abs", 0);
	if (astra_json_get_num(e, "max_rel", 0) > r->max_rel)
		r->max_rel = astra_json_get_num(e, "max_rel", 0);
	if (astra_json_get_num(e, "max_ratio", 0) > r->max_ratio)
		r->max_ratio = astra_json_get_num(e, "max_ratio", 0);
}

static void on_device(struct vctx *c, const struct astra_json *e)
{
	struct astra_verify_result *r = c->res;
	if (r->device)
		return;
	r->ran = 1;
	r->device = xstrdup(jstr(e, "name"));
	r->uuid = xstrdup(jstr(e, "uuid"));
	r->cc = (int)astra_json_get_num(e, "cc", 0);
	r->driver = (int)astra_json_get_num(e, "driver", 0);
	r->runtime = (int)astra_json_get_num(e, "runtime", 0);
}

enum outcome { RUN_DONE, RUN_AGAIN, RUN_STOP };

/*
 * Read the events of one run.  A crash or hang names the version that was
 * running: a candidate is rejected and the caller runs again without it;
 * the reference crashing on misaligned pointers means the original needs
 * aligned ones (noted, phase dropped); anything else about the reference
 * stops the verification (res->not_run).
 */
static enum outcome read_events(struct vctx *c, const struct astra_buf *out, int rc, unsigned *todo,
				const char *tool)
{
	const char *p = out->buf;
	enum outcome oc = RUN_STOP;
	int done = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		struct astra_json *e = astra_json_parse(p, len);
		const char *ev = astra_json_get_str(e, "event");
		p = eol ? eol + 1 : NULL;
		if (!ev) {
			astra_json_free(e);
			continue;
		}
		if (!strcmp(ev, "device")) {
			on_device(c, e);
		} else if (!strcmp(ev, "case")) {
			size_t ci = (size_t)astra_json_get_num(e, "case", 0);
			ensure_cases(c, ci + 1);
			free(c->res->labels[ci]);
			c->res->labels[ci] = xstrdup(jstr(e, "label"));
			/*
			 * Every run announces its cases, but only a run with checks
			 * probes which outputs are read ("io" below): a later
			 * timing-only run must not put the buffers' sizes back.
			 */
			if (!c->res->bytes[ci]) {
				c->res->bytes[ci] = astra_json_get_num(e, "input_bytes", 0) +
					astra_json_get_num(e, "output_bytes", 0);
				c->res->written[ci] = astra_json_get_num(e, "output_bytes", 0);
			}
			c->res->flops[ci] = astra_json_get_num(e, "flops", 0);
			if (astra_json_get_str(e, "tolerances")) {
				free(c->res->tolerances[ci]);
				c->res->tolerances[ci] = xstrdup(astra_json_get_str(e, "tolerances"));
			}
		} else if (!strcmp(ev, "data")) {
			if (astra_json_get_bool(e, "loaded", 0))
				c->res->captured_loaded++;
			else
				c->res->captured_missing++;
		} else if (!strcmp(ev, "dim")) {
			/* Every run announces them: keep one value per name. */
			long ci = (long)astra_json_get_num(e, "case", -1);
			const char *name = astra_json_get_str(e, "name");
			const struct astra_json *v = astra_json_get(e, "value");
			if (ci >= 0 && (size_t)ci < c->res->nr_cases && name && astra_json_is_number(v))
				set_dim(&c->res->dims[ci], name, astra_json_num(v, 0));
		} else if (!strcmp(ev, "start")) {
			if (astra_json_get_str(e, "distributions") && !c->res->distributions)
				c->res->distributions = xstrdup(astra_json_get_str(e, "distributions"));
		} else if (!strcmp(ev, "io")) {
			/* What the original really reads and writes (in-place outputs twice). */
			long ci = (long)astra_json_get_num(e, "case", -1);
			if (ci >= 0 && (size_t)ci < c->res->nr_cases) {
				c->res->bytes[ci] = astra_json_get_num(e, "read_bytes", 0) +
					astra_json_get_num(e, "written_bytes", 0);
				c->res->written[ci] = astra_json_get_num(e, "written_bytes", 0);
			}
		} else if (!strcmp(ev, "fail")) {
			on_fail(c, e);
		} else if (!strcmp(ev, "time")) {
			on_time(c, e);
		} else if (!strcmp(ev, "passed")) {
			on_passed(c, e);
		} else if (!strcmp(ev, "phase-done")) {
			unsigned bit = phase_bit(astra_json_get_str(e, "phase"));
			c->phases_done |= bit;
			*todo &= ~bit;
			if (bit && !tool)
				c->res->phase_seconds[phase_index(bit)] += astra_json_get_num(e, "seconds", 0);
		} else if (!strcmp(ev, "nondeterministic-reference")) {
			if (c->res->reference_deterministic) {
				c->res->reference_deterministic = 0;
				note(c, "the original kernel is not bit-for-bit deterministic (`%s` differs between "
				     "two runs): candidates are held to the tolerance against themselves", jstr(e, "buffer"));
			}
		} else if (!strcmp(ev, "done")) {
			done = 1;
		} else if (!strcmp(ev, "nogpu")) {
			free(c->res->not_run);
			c->res->not_run = xasprintf("no usable GPU: %s", jstr(e, "message"));
		} else if (!strcmp(ev, "setup")) {
			char *where = case_desc(c, e);
			free(c->res->not_run);
			c->res->not_run = xasprintf("the original kernel fails the test itself, so the pragma does not "
						    "describe it: %s [%s]", jstr(e, "message"), where);
			c->res->setup_check = !strcmp(jstr(e, "check"), "out-of-bounds") ? "out-of-bounds"
				: !strcmp(jstr(e, "check"), "input-modified") ? "input-modified"
				: !strcmp(jstr(e, "check"), "launch") ? "launch" : "pragma";
			free(where);
		} else if (!strcmp(ev, "crash") || !strcmp(ev, "hang")) {
			int hang = !strcmp(ev, "hang");
			double v = astra_json_get_num(e, "version", -1);
			long ci = cand_of(c, v);
			unsigned ph = phase_bit(astra_json_get_str(e, "phase"));
			char *where = case_desc(c, e);
			if (ci >= 0) {
				const char *check = tool ? tool : hang ? "hang" : ph == PH_MISALIGNED ? "misaligned" : "crash";
				if (hang)
					reject(c, (size_t)ci, check, "did not finish within %.3g s (the watchdog stopped it) [%s]",
					       astra_json_get_num(e, "limit_s", 0), where);
				else
					reject(c, (size_t)ci, check, "crashed%s: %s (%s) [%s]",
					       ph == PH_MISALIGNED ? " with misaligned base pointers" : "",
					       jstr(e, "error"), jstr(e, "message"), where);
				oc = RUN_AGAIN;
			} else if (v == 0 && ph == PH_MISALIGNED && !hang && !tool) {
				c->res->misaligned = 0;
				note(c, "the original kernel faults on misaligned base pointers (%s): it requires aligned "
				     "buffers, so misaligned pointers were not tried on the candidates", jstr(e, "error"));
				*todo &= ~PH_MISALIGNED;
				oc = RUN_AGAIN;
			} else {
				free(c->res->not_run);
				c->res->not_run = v == 0
					? xasprintf("the original kernel %s [%s]", hang ? "hangs" : "crashes", where)
					: xasprintf("the test program failed: %s (%s) [%s]", jstr(e, "error"),
						    jstr(e, "message"), where);
				c->res->setup_check = v == 0 ? (hang ? "hang" : "crash") : "internal";
			}
			free(where);
		}
		astra_json_free(e);
	}
	if (done && rc == 0)
		return RUN_DONE;
	if (oc == RUN_AGAIN)
		return RUN_AGAIN;
	if (!c->res->not_run)
		c->res->not_run = c->stop_why
			? xasprintf("the test program stopped without a result: %s", c->stop_why)
			: xasprintf("the test program stopped without a result (exit status %d)", rc);
	return RUN_STOP;
}

static void versions_arg(struct vctx *c, struct astra_buf *b)
{
	size_t v;
	astra_buf_reset(b);
	for (v = 1; v <= c->nmap; v++)
		if (!c->c[c->map[v - 1]].done)
			astra_buf_addf(b, "%s%zu", b->len ? "," : "", v);
	if (!b->len)
		astra_buf_adds(b, "0");
}

static size_t nr_pending(const struct vctx *c)
{
	size_t v, n = 0;
	for (v = 1; v <= c->nmap; v++)
		n += !c->c[c->map[v - 1]].done;
	return n;
}

/*
 * Concurrent verifications (astra-cc --warmup -j N, parallel builds in
 * `optimize` mode, several --verify) share one GPU: a test program's
 * timings must not share it.  Every run on the GPU holds a lock:
 * ASTRA_CC_GPU_LOCK when set (warmup sets it for each worker's GPU), else
 * the GPU's own lock in the cache directory (gpu-<UUID>.lock, or gpu.lock
 * when the UUID is unknown: verify/gpu.h), so that every astra-cc using
 * that cache takes turns on that GPU, and runs on other GPUs go on;
 * compiles proceed in parallel.  The kernel releases an flock when its
 * holder dies.  A lock that cannot be opened (no cache directory) is
 * skipped.
 */
/* The cache directory: the caller's, else the `dir` setting. */
static const char *cache_dir(const struct vctx *c)
{
	return c->o->cache_dir ? c->o->cache_dir : astra_config_str(ASTRA_CFG_DIR);
}

/*
 * Take the GPU lock: ASTRA_CC_GPU_LOCK's file, opened without following a
 * symbolic link at its end and without blocking on a FIFO (only a regular
 * file is locked), or the cache tier's local lock "gpu.lock" (created with
 * the cache's umask, like every lock there).  lk->fd < 0: no lock.
 */
static void gpu_lock(const struct vctx *c, struct astra_file_lock *lk)
{
	const char *path = astra_getenv("ASTRA_CC_GPU_LOCK");
	lk->fd = lk->dir = -1;
	lk->name = NULL;
	if (path) {
		mode_t old = astra_trust_umask_enter();
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
		struct stat st;
		astra_trust_umask_leave(old);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			return;
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		lk->fd = fd;
	} else {
		const char *dir = cache_dir(c);
		struct astra_storage *s;
		struct astra_gpu g;
		char *name;
		if (!dir || !*dir)
			return;
		/* gpu-<UUID>.lock: one lock per GPU (verify/gpu.h), so that workers on different GPUs run at once. */
		astra_gpu_probe(c->o->nvcc, &g);
		name = astra_gpu_lock_name(&g);
		s = astra_storage_file_open(dir);
		/* A fresh cache: the first runs must take turns too. */
		if (astra_storage_file_create(s) < 0 || astra_storage_file_lock(s, name, -1, lk) != 1)
			lk->fd = -1;
		s->ops->close(s);
		free(name);
	}
}

static void gpu_unlock(struct astra_file_lock *lk)
{
	if (lk->dir >= 0) {
		astra_storage_file_unlock(lk, 0);
	} else if (lk->fd >= 0) {
		close(lk->fd);
		lk->fd = -1;
	}
}

/*
 * Seconds the launches of a run of `versions` candidates (and the
 * original) take at the original's measured speed: its median time at
 * each case, ASTRA_VERIFY_LAUNCHES launches per case and version.  Before
 * this verification has timed the original, an earlier one's time
 * (opts.ref_us), else 0 (the first run of the loop's first round).
 */
static double planned_seconds(const struct vctx *c, size_t versions)
{
	double us = 0;
	size_t j;
	for (j = 0; c->res->baseline && j < c->res->nr_cases; j++)
		if (c->res->baseline[j].timed)
			us += c->res->baseline[j].timing.median;
	if (us <= 0)
		us = c->o->ref_us;
	return us * 1e-6 * ASTRA_VERIFY_LAUNCHES * (double)(versions + 1);
}

/*
 * Run a test program (argv) for `versions` candidates in the sandbox;
 * also_writable: a directory it may write in besides its own (NULL: none).
 */
static int run_program(struct vctx *c, struct astra_vec *argv, size_t versions, const char *also_writable,
		       struct astra_buf *out, struct astra_buf *err, int *timed_out)
{
	struct astra_run_opts ro = { 0 };
	struct astra_sandbox sb;
	struct astra_sandbox_work work;
	struct astra_sandbox_limits lim;
	char *env_add[2] = { NULL, NULL };
	double t0;
	struct astra_file_lock lock;
	int rc, sandboxed = 0;
	astra_buf_reset(out);
	astra_buf_reset(err);
	free(c->stop_why);
	c->stop_why = NULL;
	ro.out = out;
	ro.err = err;
	/* The limits follow the work (verify/sandbox.h). */
	memset(&work, 0, sizeof(work));
	work.timeout = c->o->timeout;
	work.planned = planned_seconds(c, versions);
	work.cpus = sysconf(_SC_NPROCESSORS_ONLN);
	astra_sandbox_limits(&work, &lim);
	ro.timeout = lim.wall;
	/* Candidate code runs here: in the sandbox (verify/sandbox.h) unless the setting says no. */
	memset(&sb, 0, sizeof(sb));
	if (astra_config_bool(ASTRA_CFG_SANDBOX)) {
		char *dir = xasprintf("%s/run", c->dir);
		sandboxed = astra_sandbox_prepare(&sb, dir, &lim, also_writable) == 0;
		free(dir);
	}
	if (sandboxed) {
		ro.cwd = sb.dir;
		env_add[0] = sb.tmpdir_env;
		ro.env_add = env_add;
		ro.child_setup = astra_sandbox_enter;
		ro.child_data = &sb;
	}
	if (!c->sandbox_noted) {
		const char *why = NULL;
		c->sandbox_noted = 1;
		if (!sandboxed)
			note(c, "sandbox: off (setting `sandbox`, or no private directory): test programs ran without limits");
		else if (!astra_sandbox_netns_available(&why))
			note(c, "sandbox: limits and a private directory; not isolated from the network (%s)", why);
		if (sandboxed && !astra_sandbox_landlock_available(&why))
			note(c, "sandbox: the test programs' writes are not confined to their directory: they may write "
			     "wherever the user may (%s)", why);
		else if (sandboxed && sb.ruleset < 0)
			note(c, "sandbox: the test programs' writes are not confined to their directory: a Landlock rule "
			     "could not be made (see the log)");
	}
	t0 = astra_now();
	gpu_lock(c, &lock);
	c->res->gpu_wait_seconds += astra_now() - t0;
	t0 = astra_now();
	rc = astra_run(argv->v, &ro);
	gpu_unlock(&lock);
	c->res->run_seconds += astra_now() - t0;
	c->res->program_runs++;
	*timed_out = ro.timed_out;
	astra_trace(ASTRA_TRACE_VERIFY, "test program: exit %d%s after %.1f s (limits: %.0f s wall-clock, %.0f s CPU)",
		    rc, ro.timed_out ? " (timed out)" : "", ro.seconds, lim.wall, lim.cpu);
	if (ro.timed_out)
		c->stop_why = xasprintf("killed by the wall-clock limit (%.0f s)", lim.wall);
	else if (sandboxed)
		c->stop_why = astra_sandbox_stop_reason(&sb, rc, err->buf);
	if (sandboxed)
		astra_sandbox_release(&sb);
	return rc;
}

static void common_args(struct vctx *c, struct astra_vec *argv)
{
	astra_vec_push(argv, "--seed");
	astra_vec_pushf(argv, "%llu", c->seed);
	astra_vec_push(argv, "--watchdog");
	astra_vec_pushf(argv, "%g", c->o->watchdog > 0 ? c->o->watchdog : 5.0);
}

/* The main run: checks, timing, post, misaligned; re-run until all judged. */
static void run_round(struct vctx *c)
{
	unsigned todo = c->o->timing_only ? PH_TIMING
		: PH_CHECK | PH_POST | PH_MISALIGNED | (c->o->timing ? PH_TIMING : 0);
	struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT, vers = ASTRA_BUF_INIT, ph = ASTRA_BUF_INIT;
	size_t attempt;

	c->res->misaligned = 1;
	c->res->reference_deterministic = 1;
	for (attempt = 0; attempt < c->nmap + 4 && todo; attempt++) {
		struct astra_vec argv = ASTRA_VEC_INIT;
		int rc, timed_out;
		enum outcome oc;
		if (!nr_pending(c))
			todo &= PH_TIMING;  /* the baseline's profile is still wanted */
		if (!todo)
			break;
		versions_arg(c, &vers);
		astra_vec_push(&argv, c->prog);
		astra_vec_push(&argv, "--phases");
		astra_vec_push(&argv, phase_names(todo, &ph));
		astra_vec_push(&argv, "--versions");
		astra_vec_push(&argv, vers.buf);
		common_args(c, &argv);
		rc = run_program(c, &argv, nr_pending(c), NULL, &out, &err, &timed_out);
		astra_vec_clear(&argv);
		if (timed_out) {
			free(c->res->not_run);
			c->res->not_run = xasprintf("the test program was %s", c->stop_why);
			break;
		}
		oc = read_events(c, &out, rc, &todo, NULL);
		if (oc == RUN_DONE || (oc == RUN_AGAIN && !todo)) {
			c->finished = 1;
			todo = 0;
			break;
		}
		if (oc == RUN_STOP) {
			if (err.len) {
				char *head = first_lines(err.buf, 5);
				astra_trace(ASTRA_TRACE_VERIFY, "test program stderr: %s", head);
				free(head);
			}
			break;
		}
		if (!nr_pending(c) && !(todo & PH_TIMING)) {
			c->finished = 1;
			todo = 0;
		}
	}
	if (todo && !c->res->not_run)
		c->res->not_run = xstrdup("the test program did not finish (too many re-runs)");
	astra_buf_release(&out);
	astra_buf_release(&err);
	astra_buf_release(&vers);
	astra_buf_release(&ph);
}

/* ----------------------------------------------------------- sanitizers */

static char *find_sanitizer(struct vctx *c)
{
	char *dir = xstrdup(c->o->nvcc), *slash = strrchr(dir, '/'), *p = NULL;
	if (slash) {
		*slash = '\0';
		p = xasprintf("%s/compute-sanitizer", dir);
		if (access(p, X_OK) != 0) {
			free(p);
			p = NULL;
		}
	}
	free(dir);
	return p ? p : astra_which("compute-sanitizer");
}

/*
 * Read a compute-sanitizer log: each report starts with a "========= "
 * header line; the lines after it name the kernel ("at astra_cand_2::k...").
 * Reports about a candidate reject it; reports about the original are noted.
 */
static size_t read_sanitizer_log(struct vctx *c, const char *tool, const char *log)
{
	const char *p = log;
	char *header = NULL;
	size_t rejected = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		char *l = xstrndup(p, eol ? (size_t)(eol - p) : strlen(p));
		p = eol ? eol + 1 : NULL;
		if (!astra_starts_with(l, "========= ")) {
			free(l);
			continue;
		}
		if (l[10] != ' ' && !astra_starts_with(l + 10, "ERROR SUMMARY") &&
		    !astra_starts_with(l + 10, "COMPUTE-SANITIZER") && !astra_starts_with(l + 10, "Program hit") &&
		    !astra_starts_with(l + 10, "Saved host backtrace") && !astra_starts_with(l + 10, "Target application")) {
			free(header);
			header = xstrdup(l + 10);
		}
		if (header) {
			const char *ac = strstr(l, "astra_cand_");
			if (ac) {
				long v = strtol(ac + strlen("astra_cand_"), NULL, 10);
				long ci = cand_of(c, (double)(v + 1));
				if (ci >= 0 && !c->c[ci].done) {
					char *at = xstrdup(l + 10);
					char *s = at;
					while (*s == ' ')
						s++;
					reject(c, (size_t)ci, tool, "compute-sanitizer --tool %s: %s (%s)", tool, header, s);
					free(at);
					rejected++;
				}
				free(header);
				header = NULL;
			}
		}
		free(l);
	}
	free(header);
	return rejected;
}

static void run_sanitizers(struct vctx *c)
{
	static const char *const tools[] = { "memcheck", "racecheck" };
	int want = c->o->sanitizer < 0 ? astra_config_bool(ASTRA_CFG_SANITIZER) : c->o->sanitizer;
	double run0 = c->res->run_seconds;
	char *cs, *logdir;
	size_t t;
	if (!want) {
		note(c, "compute-sanitizer: disabled (setting `sanitizer`)");
		return;
	}
	cs = find_sanitizer(c);
	if (!cs) {
		note(c, "compute-sanitizer: not found, memcheck and racecheck did not run");
		return;
	}
	/* Its logs: a directory of their own, the one it may write besides the program's (verify/sandbox.h). */
	logdir = xasprintf("%s/tools", c->dir);
	if (mkdir(logdir, 0700) < 0 && errno != EEXIST)
		note(c, "cannot create %s: %s", logdir, strerror(errno));
	for (t = 0; t < ARRAY_SIZE(tools); t++) {
		struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT, vers = ASTRA_BUF_INIT, log = ASTRA_BUF_INIT;
		char *logpath = xasprintf("%s/%s.log", logdir, tools[t]);
		size_t attempt;
		int clean = 0;
		for (attempt = 0; attempt < c->nmap + 2 && nr_pending(c); attempt++) {
			struct astra_vec argv = ASTRA_VEC_INIT;
			unsigned todo = PH_CHECK;
			int rc, timed_out;
			size_t rej;
			enum outcome oc;
			versions_arg(c, &vers);
			astra_vec_push(&argv, cs);
			astra_vec_push(&argv, "--tool");
			astra_vec_push(&argv, tools[t]);
			astra_vec_push(&argv, "--log-file");
			astra_vec_push(&argv, logpath);
			astra_vec_push(&argv, "--print-limit");
			astra_vec_push(&argv, "20");
			astra_vec_push(&argv, "--error-exitcode");
			astra_vec_push(&argv, "86");
			astra_vec_push(&argv, c->prog);
			astra_vec_push(&argv, "--sanitize");
			astra_vec_push(&argv, "--versions");
			astra_vec_push(&argv, vers.buf);
			common_args(c, &argv);
			unlink(logpath);
			rc = run_program(c, &argv, nr_pending(c), logdir, &out, &err, &timed_out);
			astra_vec_clear(&argv);
			astra_buf_reset(&log);
			astra_buf_read_file(&log, logpath, 16 << 20);
			rej = read_sanitizer_log(c, tools[t], log.buf);
			if (timed_out) {
				note(c, "compute-sanitizer --tool %s: %s; not counted", tools[t], c->stop_why);
				break;
			}
			oc = read_events(c, &out, rc == 86 ? 0 : rc, &todo, tools[t]);
			if (oc == RUN_DONE && rc == 0) {
				clean = 1;
				break;
			}
			if (oc == RUN_DONE && rc == 86 && !rej) {
				/* Errors the log did not tie to a candidate: the original's, or ours. */
				clean = 1;
				break;
			}
			if (oc == RUN_STOP && !rej) {
				if (c->stop_why)
					note(c, "compute-sanitizer --tool %s did not complete (%s); not counted", tools[t],
					     c->stop_why);
				else
					note(c, "compute-sanitizer --tool %s did not complete (exit status %d); not counted",
					     tools[t], rc);
				/* A failure of the tool must not hide the main verdicts. */
				free(c->res->not_run);
				c->res->not_run = NULL;
				c->res->setup_check = NULL;
				break;
			}
		}
		if (clean) {
			size_t i;
			if (t == 0)
				c->res->memcheck = 1;
			else
				c->res->racecheck = 1;
			for (i = 0; i < c->n; i++)
				if (c->c[i].in_prog && !c->c[i].done) {
					if (t == 0)
						c->res->cands[i].memcheck = 1;
					else
						c->res->cands[i].racecheck = 1;
				}
		}
		free(logpath);
		astra_buf_release(&out);
		astra_buf_release(&err);
		astra_buf_release(&vers);
		astra_buf_release(&log);
	}
	c->res->sanitizer_seconds += c->res->run_seconds - run0;
	free(cs);
	free(logdir);
}

/* ------------------------------------------------------------ ceilings */

static void get_ceilings(struct vctx *c)
{
	const char *dir = cache_dir(c);
	struct astra_cache *cache;
	struct astra_device_ceilings d;
	struct astra_ceilings ce = { 0, 0 };
	if (!c->res->device || !c->res->cc)
		return;
	cache = astra_cache_open(dir);
	memset(&d, 0, sizeof(d));
	if (astra_cache_device_get(cache, c->res->device, c->res->cc, &d) == 1) {
		ce.copy_gbps = d.copy_gbps;
		ce.fma_gflops = d.fma_gflops;
	} else {
		/* First time on this device: measure (a few seconds) and keep. */
		struct astra_vec argv = ASTRA_VEC_INIT;
		struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
		int timed_out, rc;
		const char *p;
		astra_vec_push(&argv, c->prog);
		astra_vec_push(&argv, "--ceilings");
		rc = run_program(c, &argv, 0, NULL, &out, &err, &timed_out);
		for (p = out.buf; rc == 0 && p && *p;) {
			const char *eol = strchr(p, '\n');
			struct astra_json *e = astra_json_parse(p, eol ? (size_t)(eol - p) : strlen(p));
			if (astra_json_get_str(e, "event") && !strcmp(astra_json_get_str(e, "event"), "ceilings")) {
				ce.copy_gbps = astra_json_get_num(e, "copy_gbps", 0);
				ce.fma_gflops = astra_json_get_num(e, "fma_gflops", 0);
			}
			astra_json_free(e);
			p = eol ? eol + 1 : NULL;
		}
		if (ce.copy_gbps > 0 && ce.fma_gflops > 0) {
			struct astra_device_ceilings put;
			memset(&put, 0, sizeof(put));
			put.device = c->res->device;
			put.cc = c->res->cc;
			put.driver = xasprintf("%d", c->res->driver);
			put.copy_gbps = ce.copy_gbps;
			put.fma_gflops = ce.fma_gflops;
			astra_cache_device_put(cache, &put);
			free(put.driver);
			note(c, "measured the device's ceilings (kept in the cache): copy %.0f GB/s, FMA %.0f GFLOP/s",
			     ce.copy_gbps, ce.fma_gflops);
		} else {
			note(c, "the device's ceilings could not be measured: roofline fractions are not available");
		}
		astra_vec_clear(&argv);
		astra_buf_release(&out);
		astra_buf_release(&err);
	}
	astra_device_ceilings_release(&d);
	astra_cache_close(cache);
	c->res->ceilings = ce;
}

/* ------------------------------------------------------------- verdicts */

int astra_verify_reads_part(const struct astra_kernel *k)
{
	size_t i, j;
	if (k->pragma.bytes)
		return 0;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		if (!p->is_pointer || !p->is_const || !astra_type_integer_sign(p->elem_type) || !p->name)
			continue;
		for (j = 0; j < k->pragma.nr_ranges; j++)
			if (k->pragma.ranges[j].name && !strcmp(k->pragma.ranges[j].name, p->name))
				return 1;
	}
	return 0;
}

static void judge_timing(struct vctx *c)
{
	struct astra_verify_result *r = c->res;
	size_t i, j, largest = astra_profile_largest(r->bytes, r->nr_cases);
	int reads_part = astra_verify_reads_part(c->k), overstated = 0;
	for (j = 0; j < r->nr_cases; j++) {
		if (r->baseline[j].timed) {
			r->baseline[j].above_ceiling = astra_profile_fill(&r->baseline[j].prof, &r->baseline[j].timing,
									  r->bytes[j], r->flops[j], &r->ceilings);
			r->baseline[j].prof.regs = c->ref_regs;
			r->baseline[j].prof.spills = c->ref_spills;
			if (r->baseline[j].above_ceiling)
				r->baseline_above_ceiling = 1;
		}
	}
	if (r->baseline_above_ceiling)
		note(c, "the original kernel runs above the device's measured ceiling by the pragma's byte counts: "
		     "buffers() overstates the memory traffic (a kernel that reads part of a buffer), so the "
		     "roofline fractions are not meaningful");
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *cr = &r->cands[i];
		double logsum = 0;
		int nt = 0;
		cr->regs = c->c[i].regs;
		cr->spills = c->c[i].spills;
		if (!cr->cases)
			continue;
		for (j = 0; j < r->nr_cases; j++) {
			struct astra_case_result *cc = &cr->cases[j];
			if (!cc->timed || !r->baseline[j].timed)
				continue;
			cc->above_ceiling = astra_profile_fill(&cc->prof, &cc->timing, r->bytes[j], r->flops[j], &r->ceilings);
			cc->prof.regs = cr->regs;
			cc->prof.spills = cr->spills;
			cc->cmp = astra_profile_compare(&r->baseline[j].timing, &cc->timing, &cc->speedup);
			if (cc->above_ceiling && !r->baseline[j].above_ceiling) {
				struct astra_profile least;
				if (reads_part && !astra_profile_fill(&least, &cc->timing, r->written[j], r->flops[j],
								      &r->ceilings))
					overstated = 1;
				else
					cr->measurement_error = 1;
			}
			if (cc->speedup > 0) {
				logsum += log(cc->speedup);
				nt++;
			}
		}
		if (nt) {
			cr->speedup = exp(logsum / nt);
			cr->speedup_largest = cr->cases[largest].speedup;
			cr->faster = cr->verdict == ASTRA_CAND_ACCEPTED && cr->cases[largest].cmp > 0 &&
				cr->speedup >= 1.0 && !cr->measurement_error;
		}
	}
	if (overstated)
		note(c, "candidates ran faster than the device's ceiling allows for the pragma's byte counts, but not "
		     "for the bytes they write: the kernel takes an index buffer and reads part of a buffer (a "
		     "gather), so buffers() overstate its traffic; give bytes(...) for roofline fractions that mean "
		     "something");
}

/* ------------------------------------------------------------ the entry */

/*
 * The libclang gate every proposed variant passes (front/extract.h): the
 * same name, parameters, template parameters and linkage as the original,
 * launch expressions in the kernel's parameters only.  Its reasons are
 * sorted into the verifier's check names.
 */
static int gate(struct vctx *c, size_t i, const struct astra_variant *v)
{
	struct astra_variant copy;
	struct astra_buf why = ASTRA_BUF_INIT;
	const char *check = "candidate";
	int rc;

	memset(&copy, 0, sizeof(copy));
	copy.text = v->text;
	rc = astra_extract_candidate(c->k, &copy, NULL, &why);
	if (rc == 0) {
		/* Geometry from the launch line, unless the caller gave one. */
		if (!v->grid && !v->block && !v->shmem) {
			c->c[i].own_grid = copy.grid;
			c->c[i].own_block = copy.block;
			c->c[i].own_shmem = copy.shmem;
			copy.grid = copy.block = copy.shmem = NULL;
		}
		free(copy.grid);
		free(copy.block);
		free(copy.shmem);
		astra_buf_release(&why);
		return 0;
	}
	free(copy.grid);
	free(copy.block);
	free(copy.shmem);
	astra_buf_rtrim(&why);
	if (strstr(why.buf, "launch("))
		check = "geometry";
	else if (strstr(why.buf, "parameter") || strstr(why.buf, "named") || strstr(why.buf, "extern \"C\"") ||
		 strstr(why.buf, "__restrict__"))
		check = "signature";
	else if (strstr(why.buf, "state between"))
		check = "state";
	else if (strstr(why.buf, "host function") || strstr(why.buf, "__host__ __device__ function") ||
		 strstr(why.buf, "only __device__ member functions"))
		check = "host-code";
	else if (strstr(why.buf, "no __global__"))
		check = "kernel-missing";
	reject(c, i, check, "%s: %s", c->res->cands[i].name, why.buf);
	astra_buf_release(&why);
	return -1;
}

static void setup_candidates(struct vctx *c, const struct astra_variant *cands, const char *const *names)
{
	size_t i, j;
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *r = &c->res->cands[i];
		const char *nm = names && names[i] ? names[i] : NULL;
		char *base = nm ? xstrdup(nm) : xasprintf("candidate-%zu", i);
		char *s;
		/* A #line file name: no quotes, backslashes or newlines; unique. */
		for (s = base; *s; s++)
			if (*s == '"' || *s == '\\' || *s == '\n' || *s == '\r')
				*s = '_';
		for (j = 0; j < i; j++)
			if (!strcmp(c->res->cands[j].name, base)) {
				char *u = xasprintf("%s#%zu", base, i);
				free(base);
				base = u;
				break;
			}
		r->name = base;
		r->verdict = ASTRA_CAND_NOT_RUN;
		r->regs = r->spills = -1;
		c->c[i].regs = c->c[i].spills = -1;
		if (!cands[i].text) {
			reject(c, i, "syntax", "empty candidate");
			continue;
		}
		if (c->o->screen) {
			if (astra_screen_candidate(cands[i].text, c->k->name, &c->c[i].scr) < 0) {
				if (c->c[i].scr.line)
					reject(c, i, c->c[i].scr.check, "%s:%u: %s", r->name, c->c[i].scr.line,
					       c->c[i].scr.reason);
				else
					reject(c, i, c->c[i].scr.check, "%s", c->c[i].scr.reason);
				continue;
			}
			if (gate(c, i, &cands[i]) < 0)
				continue;
		} else {
			memset(&c->c[i].scr, 0, sizeof(c->c[i].scr));
			c->c[i].scr.text = xstrdup(cands[i].text);
		}
		/* The variant's own geometry, else what its text declares. */
		if (cands[i].grid || cands[i].block || cands[i].shmem) {
			c->c[i].grid = cands[i].grid;
			c->c[i].block = cands[i].block;
			c->c[i].shmem = cands[i].shmem;
		} else if (c->c[i].own_grid || c->c[i].own_block || c->c[i].own_shmem) {
			c->c[i].grid = c->c[i].own_grid;
			c->c[i].block = c->c[i].own_block;
			c->c[i].shmem = c->c[i].own_shmem;
		} else {
			c->c[i].grid = c->c[i].scr.grid;
			c->c[i].block = c->c[i].scr.block;
			c->c[i].shmem = c->c[i].scr.shmem;
		}
	}
}

/*
 * A kernel in header kf: what the compiler has seen when it enters the
 * header, as c->prefix: the main file up to the #include line that reaches
 * the header, then each header on the way up to its own #include line
 * (tu->includes says who first included whom, and where).  The header's
 * host code may use what only the main file's earlier includes declare
 * (cuda-samples' getLastCudaError from helper_cuda.h).
 */
static void header_prefix(struct vctx *c, const char *kf)
{
	const struct astra_includes *inc = &c->tu->includes;
	struct stat st;
	size_t i, n = 0;
	long at = -1;
	int have = stat(kf, &st) == 0;

	for (i = 0; i < inc->nr && at < 0; i++) {
		const struct astra_header *h = &inc->items[i];
		if (h->text && ((have && h->dev == st.st_dev && h->ino == st.st_ino) || !strcmp(h->path, kf)))
			at = (long)i;
	}
	if (at < 0) {
		note(c, "%s: not found among the compile unit's includes: the test program has the header's "
		     "text alone", kf);
		return;
	}
	/* the chain's length first, then the parts outermost first */
	for (i = (size_t)at; n <= inc->nr; n++) {
		if (inc->items[i].parent < 0)
			break;
		i = (size_t)inc->items[i].parent;
	}
	if (n > inc->nr)
		return; /* a cycle: cannot be (each file once) */
	c->nr_prefix = n + 1;
	c->prefix = xcalloc(c->nr_prefix, sizeof(*c->prefix));
	for (i = (size_t)at; ; i = (size_t)inc->items[i].parent) {
		const struct astra_header *h = &inc->items[i];
		struct astra_harness_part *p = &c->prefix[n--];
		if (h->parent < 0) {
			p->path = c->tu->path;
			p->text = c->tu->text;
			p->len = h->at <= c->tu->len ? h->at : c->tu->len;
			break;
		}
		p->path = inc->items[h->parent].path;
		p->text = inc->items[h->parent].text;
		p->len = h->at <= inc->items[h->parent].len ? h->at : inc->items[h->parent].len;
	}
}

static int load_source(struct vctx *c)
{
	const char *kf = c->k->file;
	if (kf && c->tu->path && strcmp(kf, c->tu->path)) {
		/* A kernel in a header: its text after what the TU has before it. */
		if (astra_buf_read_file(&c->src, kf, 0) < 0)
			return error("cannot read %s: %s", kf, strerror(errno));
		c->src_path = kf;
		header_prefix(c, kf);
		return 0;
	}
	astra_buf_add(&c->src, c->tu->text, c->tu->len);
	c->src_path = c->tu->path ? c->tu->path : (kf ? kf : "input.cu");
	return 0;
}

int astra_verify(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		 const struct astra_variant *cands, const char *const *names, size_t n,
		 const struct astra_verify_opts *opts, struct astra_verify_result *res)
{
	struct vctx c;
	const char *opts_program = opts->program;
	size_t i;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.tu = tu;
	c.k = k;
	c.cl = cl;
	c.o = opts;
	c.res = res;
	c.n = n;
	c.c = xcalloc(n ? n : 1, sizeof(*c.c));
	c.seed = opts->seed ? opts->seed : 0x5eedULL;
	res->seed = c.seed;
	c.ref_regs = c.ref_spills = -1;
	astra_buf_init(&c.notes, 0);
	astra_buf_init(&c.src, 0);
	res->cands = xcalloc(n ? n : 1, sizeof(*res->cands));
	res->nr_cands = n;
	res->reference_deterministic = 1;

	if (!opts->nvcc) {
		res->not_run = xstrdup("no nvcc");
		rc = error("verify: no nvcc");
		goto out;
	}
	if (load_source(&c) < 0) {
		res->not_run = xstrdup("cannot read the kernel's source file");
		rc = -1;
		goto out;
	}
	if (make_workdir(&c) < 0) {
		res->not_run = xstrdup("cannot create a work directory");
		rc = -1;
		goto out;
	}
	setup_candidates(&c, cands, names);
	if (!opts->program && !opts->no_run && astra_getenv("ASTRA_CC_TEST_PROGRAM"))
		opts_program = astra_getenv("ASTRA_CC_TEST_PROGRAM");
	if (opts_program) {
		/* A test of astra-cc: the program is given, version i+1 is candidate i. */
		/* Absolute: the program runs in the sandbox's own directory. */
		c.prog = realpath(opts_program, NULL);
		if (!c.prog)
			c.prog = xstrdup(opts_program);
		c.map = xcalloc(n + 1, sizeof(*c.map));
		c.nmap = n;
		for (i = 0; i < n; i++) {
			c.map[i] = i;
			c.c[i].in_prog = (int)i + 1;
		}
		res->compiled = 1;
		run_round(&c);
		goto judged;
	}
	if (!opts->no_run)
		c.gpu_cc = probe_gpu(&c);
	build_flags(&c);
	if (compile_round(&c) < 0) {
		res->not_run = xstrdup("the test program could not be compiled (internal error)");
		rc = -1;
		goto out;
	}
	if (res->not_run)
		goto out;
	if (opts->no_run || !c.gpu_cc) {
		res->not_run = opts->no_run ? xstrdup("generated and compiled the test program; not run (as asked)")
			: xasprintf("generated and compiled the test program, but could not run it: %s",
				    c.gpu_why ? c.gpu_why : "no usable GPU");
		goto out;
	}
	run_round(&c);
judged:
	if (c.finished && opts->timing_only) {
		/* Measured, not judged: nobody is accepted. */
		get_ceilings(&c);
		res->misaligned = 0;
		for (i = 0; i < n; i++)
			if (c.c[i].in_prog && !c.c[i].done) {
				res->cands[i].reason = xstrdup("timed only; correctness was not checked (--timing-only)");
				c.c[i].done = 1;
			}
		judge_timing(&c);
	} else if (c.finished) {
		run_sanitizers(&c);
		get_ceilings(&c);
		for (i = 0; i < n; i++)
			if (c.c[i].in_prog && !c.c[i].done) {
				res->cands[i].verdict = ASTRA_CAND_ACCEPTED;
				res->cands[i].misaligned = res->misaligned;
				c.c[i].done = 1;
			}
		judge_timing(&c);
	}
out:
	for (i = 0; i < n; i++)
		if (!c.c[i].done) {
			res->cands[i].verdict = ASTRA_CAND_NOT_RUN;
			if (!res->cands[i].reason)
				res->cands[i].reason = xstrdup(res->not_run ? res->not_run : "not run");
		}
	if (c.notes.len) {
		astra_buf_rtrim(&c.notes);
		res->notes = astra_buf_detach(&c.notes, NULL);
	}
	if (opts->keep && c.dir) {
		res->workdir = c.dir;
		c.dir = NULL;
	} else {
		remove_workdir(&c);
	}
	for (i = 0; i < n; i++) {
		astra_screened_release(&c.c[i].scr);
		free(c.c[i].own_grid);
		free(c.c[i].own_block);
		free(c.c[i].own_shmem);
	}
	free(c.c);
	free(c.dir);
	free(c.gpu_why);
	free(c.stop_why);
	free(c.prog);
	free(c.map);
	astra_vec_clear(&c.flags);
	astra_buf_release(&c.src);
	free(c.prefix);
	astra_buf_release(&c.notes);
	return rc;
}

void astra_verify_result_release(struct astra_verify_result *res)
{
	size_t i;
	for (i = 0; i < res->nr_cands; i++) {
		free(res->cands[i].name);
		free(res->cands[i].reason);
		free(res->cands[i].compile_log);
		free(res->cands[i].mismatch_output);
		free(res->cands[i].cases);
	}
	free(res->cands);
	for (i = 0; i < res->nr_cases; i++) {
		size_t j;
		free(res->labels[i]);
		free(res->tolerances ? res->tolerances[i] : NULL);
		for (j = 0; res->dims && j < res->dims[i].nr; j++)
			free(res->dims[i].names[j]);
		if (res->dims) {
			free(res->dims[i].names);
			free(res->dims[i].values);
		}
	}
	free(res->dims);
	free(res->labels);
	free(res->tolerances);
	free(res->distributions);
	free(res->bytes);
	free(res->written);
	free(res->flops);
	free(res->baseline);
	free(res->not_run);
	free(res->device);
	free(res->uuid);
	free(res->notes);
	free(res->workdir);
	free(res->reproduce);
	memset(res, 0, sizeof(*res));
}

int astra_verify_try_compile(const struct astra_tu *tu, const struct astra_kernel *k,
			     const struct astra_cmdline *cl, const char *nvcc, const struct astra_variant *v,
			     struct astra_buf *errors)
{
	struct astra_verify_opts o = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result r;
	int rc;
	o.nvcc = nvcc;
	o.no_run = 1;
	rc = astra_verify(tu, k, cl, v, NULL, 1, &o, &r);
	if (rc == 0 && r.compiled && r.cands[0].verdict != ASTRA_CAND_REJECTED) {
		astra_verify_result_release(&r);
		return 0;
	}
	if (r.cands && r.cands[0].reason)
		astra_buf_addf(errors, "%s\n", r.cands[0].reason);
	if (r.cands && r.cands[0].compile_log)
		astra_buf_addf(errors, "%s\n", r.cands[0].compile_log);
	else if (r.not_run)
		astra_buf_addf(errors, "%s\n", r.not_run);
	astra_verify_result_release(&r);
	return -1;
}

/* ----------------------------------------------------------------- JSON */

static void json_case(struct astra_json *o, const struct astra_case_result *r, int cand)
{
	if (cand || r->trials) {
		astra_json_set_num(o, "trials", r->trials);
		astra_json_set_num(o, "max_abs_error", r->max_abs);
		astra_json_set_num(o, "max_rel_error", r->max_rel);
		astra_json_set_num(o, "max_error_over_tolerance", r->max_ratio);
	}
	if (!r->timed)
		return;
	astra_json_set_num(o, "median_us", r->timing.median);
	astra_json_set_num(o, "q25_us", r->timing.q25);
	astra_json_set_num(o, "q75_us", r->timing.q75);
	astra_json_set_num(o, "min_us", r->timing.min);
	astra_json_set_num(o, "reps", r->timing.reps);
	astra_json_set_num(o, "spread", r->prof.spread);
	astra_json_set_num(o, "bw_frac", r->prof.bw_frac);
	astra_json_set_num(o, "flop_frac", r->prof.flop_frac);
	astra_json_set_bool(o, "above_ceiling", r->above_ceiling);
	if (cand) {
		astra_json_set_num(o, "speedup", r->speedup);
		astra_json_set_str(o, "vs_baseline", r->cmp > 0 ? "faster" : r->cmp < 0 ? "slower" : "within noise");
	}
}

static void json_str_or_null(struct astra_json *o, const char *k, const char *v)
{
	if (v)
		astra_json_set_str(o, k, v);
	else
		astra_json_set_null(o, k);
}

char *astra_verify_result_json(const struct astra_verify_result *res, int pretty)
{
	struct astra_json *j = astra_json_new_object(), *d, *ch, *arr, *o;
	char *text;
	size_t i, k;

	astra_json_set_num(j, "format", 1);
	astra_json_set_bool(j, "compiled", res->compiled);
	astra_json_set_bool(j, "ran", res->ran);
	json_str_or_null(j, "not_run", res->not_run);
	json_str_or_null(j, "setup_check", res->setup_check);
	d = astra_json_set_object(j, "device");
	json_str_or_null(d, "name", res->device);
	json_str_or_null(d, "uuid", res->uuid);
	astra_json_set_num(d, "cc", res->cc);
	astra_json_set_num(d, "driver", res->driver);
	astra_json_set_num(d, "runtime", res->runtime);
	astra_json_set_num(d, "copy_gbps", res->ceilings.copy_gbps);
	astra_json_set_num(d, "fma_gflops", res->ceilings.fma_gflops);
	ch = astra_json_set_object(j, "checks");
	astra_json_set_bool(ch, "misaligned", res->misaligned);
	astra_json_set_bool(ch, "memcheck", res->memcheck);
	astra_json_set_bool(ch, "racecheck", res->racecheck);
	astra_json_set_bool(ch, "reference_deterministic", res->reference_deterministic);
	astra_json_set_num(ch, "seed", (double)res->seed);
	json_str_or_null(ch, "distributions", res->distributions);
	arr = astra_json_set_array(j, "cases");
	for (i = 0; i < res->nr_cases; i++) {
		o = astra_json_new_object();
		astra_json_set_str(o, "label", res->labels[i]);
		if (res->dims && res->dims[i].nr) {
			struct astra_json *dj = astra_json_set_object(o, "dims");
			size_t di;
			for (di = 0; di < res->dims[i].nr; di++)
				astra_json_set_num(dj, res->dims[i].names[di], res->dims[i].values[di]);
		}
		astra_json_set_num(o, "bytes", res->bytes[i]);
		astra_json_set_num(o, "flops", res->flops[i]);
		json_str_or_null(o, "tolerances", res->tolerances ? res->tolerances[i] : NULL);
		json_case(astra_json_set_object(o, "baseline"), &res->baseline[i], 0);
		astra_json_push(arr, o);
	}
	astra_json_set_bool(j, "baseline_above_ceiling", res->baseline_above_ceiling);
	arr = astra_json_set_array(j, "candidates");
	for (i = 0; i < res->nr_cands; i++) {
		const struct astra_cand_result *c = &res->cands[i];
		struct astra_json *cases;
		o = astra_json_new_object();
		astra_json_set_str(o, "name", c->name);
		astra_json_set_str(o, "verdict", astra_cand_verdict_name(c->verdict));
		json_str_or_null(o, "check", c->check);
		json_str_or_null(o, "reason", c->reason);
		if (c->compile_log)
			astra_json_set_str(o, "compile_log", c->compile_log);
		astra_json_set_num(o, "speedup", c->speedup);
		astra_json_set_num(o, "speedup_largest", c->speedup_largest);
		astra_json_set_bool(o, "faster", c->faster);
		astra_json_set_bool(o, "measurement_error", c->measurement_error);
		astra_json_set_bool(o, "misaligned", c->misaligned);
		astra_json_set_bool(o, "memcheck", c->memcheck);
		astra_json_set_bool(o, "racecheck", c->racecheck);
		astra_json_set_num(o, "regs", c->regs);
		astra_json_set_num(o, "spills", c->spills);
		cases = astra_json_set_array(o, "cases");
		for (k = 0; c->cases && k < res->nr_cases; k++) {
			struct astra_json *x = astra_json_new_object();
			json_case(x, &c->cases[k], 1);
			astra_json_push(cases, x);
		}
		astra_json_push(arr, o);
	}
	arr = astra_json_set_array(j, "notes");
	if (res->notes) {
		const char *p = res->notes;
		while (p && *p) {
			const char *e = strchr(p, '\n');
			char *line = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
			astra_json_push_str(arr, line);
			free(line);
			p = e ? e + 1 : NULL;
		}
	}
	astra_json_set_num(j, "program_runs", res->program_runs);
	astra_json_set_num(j, "compile_seconds", res->compile_seconds);
	astra_json_set_num(j, "run_seconds", res->run_seconds);
	{
		static const char *const names[] = { "check", "timing", "post", "misaligned" };
		struct astra_json *ph = astra_json_set_object(j, "phase_seconds");
		size_t p;
		for (p = 0; p < ARRAY_SIZE(names); p++)
			astra_json_set_num(ph, names[p], res->phase_seconds[p]);
		astra_json_set_num(ph, "sanitizers", res->sanitizer_seconds);
	}
	astra_json_set_num(j, "gpu_wait_seconds", res->gpu_wait_seconds);
	json_str_or_null(j, "reproduce", res->reproduce);
	json_str_or_null(j, "workdir", res->workdir);
	text = astra_json_print(j, pretty);
	astra_json_free(j);
	return text;
}
