/*
 * verify-build.c - the testing role's compile step (verify-int.h): the
 * flags of the test program, its build for a set of candidates, a
 * compile error or a spill pinned on the candidate that caused it.
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
#include "verify/verify-int.h"
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
		astra_verify_note(c, "cannot resolve %s (%s): the test program's quoted includes are not looked for there", dir,
				  strerror(errno));
	} else if (symlink(abs, link) == 0 || (errno == EEXIST && unlink(link) == 0 && symlink(abs, link) == 0)) {
		use = link;
	} else if (astra_workspace_shell_safe(abs) && !strchr(abs, ',')) {
		use = abs;
	} else {
		astra_verify_note(c, "cannot link %s to %s (%s), whose name nvcc's shell would change: the test program's quoted "
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
void astra_verify_build_flags(struct vctx *c)
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
				astra_verify_reject(c, sel[i], "signature", "does not keep the kernel's name and signature (it must "
						    "define __global__ %s with the original's parameter types): %s", c->k->name, first);
			else if (!strcmp(check[i], "geometry"))
				astra_verify_reject(c, sel[i], "geometry", "its launch geometry does not compile (expressions may use "
						    "only the kernel's parameter names): %s", first);
			else
				astra_verify_reject(c, sel[i], "compile", "does not compile: %s", first);
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

char *astra_verify_first_lines(const char *s, int n)
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
int astra_verify_compile_round(struct vctx *c)
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
				head = astra_verify_first_lines(one.buf, 12);
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
					head = astra_verify_first_lines(one.buf, 12);
					astra_verify_reject(c, sel[i], "compile", "does not compile in the test program:\n%s", head);
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
