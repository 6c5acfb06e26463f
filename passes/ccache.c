/*
 * ccache.c - answering ccache's questions (see ccache.h and doc/ccache.md).
 *
 * Separate from the build path proper: nothing here compiles; it only
 * tells ccache, in the one channel ccache reads for every compile of an
 * annotated file (the preprocessed text), what the compile would depend on
 * beyond the source.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/locate.h"
#include "lib/log.h"
#include "lib/run.h"
#include "passes/ccache.h"
#include "passes/pipeline.h"
#include "passes/substitute.h"

/*
 * The marker line ccache reads as "an included file": it cannot exist
 * (nothing lives under /dev/null), so ccache cannot hash it and leaves its
 * direct mode off for this compile.
 */
#define NO_DIRECT_MODE "# 1 \"/dev/null/astra-cc: see astra-cc's doc/ccache.md\"\n"

char *astra_ccache_parent(void)
{
	char *p = astra_parent_path();
	if (p && astra_starts_with(astra_basename(p), "ccache"))
		return p;
	free(p);
	return NULL;
}

int astra_ccache_is_preprocess(const struct astra_invocation *inv)
{
	const struct astra_cmdline *cl = &inv->cl;
	return cl->phase == PHASE_OTHER && cl->phase_opt && !strcmp(cl->phase_opt, "-E") && cl->inputs.nr == 1 &&
	       astra_ends_with(cl->inputs.v[0], ".cu");
}

/* The compile that matches the preprocessor command: -c for -E, no -o. */
static void compile_of(const struct astra_invocation *pre, struct astra_invocation *inv)
{
	size_t i;
	memset(inv, 0, sizeof(*inv));
	inv->nvcc = pre->nvcc;
	astra_vec_init(&inv->argv);
	for (i = 0; i < pre->argv.nr; i++) {
		const char *a = pre->argv.v[i];
		if (i && (!strcmp(a, "-E") || !strcmp(a, "--preprocess"))) {
			astra_vec_push(&inv->argv, "-c");
		} else if (i && (!strcmp(a, "-o") || !strcmp(a, "--output-file"))) {
			i++;
		} else if (i && (astra_starts_with(a, "-o=") || astra_starts_with(a, "--output-file="))) {
			continue;
		} else {
			astra_vec_push(&inv->argv, a);
		}
	}
	astra_cmdline_parse(&inv->cl, (int)inv->argv.nr, inv->argv.v);
}

/* Run the command as nvcc would, in the foreground: 0, or the status to exit with. */
static int run_unmodified(struct astra_invocation *inv)
{
	struct astra_vec cmd = ASTRA_VEC_INIT;
	struct astra_run_opts ro;
	int status;

	astra_invocation_command(inv, inv->argv.v, inv->argv.nr, &cmd);
	astra_guard_prepare(inv->nvcc);
	memset(&ro, 0, sizeof(ro));
	ro.foreground = 1;
	fflush(stdout);
	status = astra_run(cmd.v, &ro);
	astra_vec_clear(&cmd);
	return status == 0 ? 0 : status < 0 ? 127 : status;
}

int astra_ccache_preprocess(struct astra_invocation *inv)
{
	struct astra_invocation comp;
	struct astra_buf text = ASTRA_BUF_INIT;
	int status;

	status = run_unmodified(inv);
	if (status != 0)
		return status;

	compile_of(inv, &comp);
	astra_buf_adds(&text, NO_DIRECT_MODE);
	if (comp.cl.reason) {
		astra_buf_addf(&text, "// astra-cc: %s: compiled as it is\n", comp.cl.reason);
	} else {
		struct astra_buf d = ASTRA_BUF_INIT;
		size_t p = 0;
		astra_pipeline_describe(&comp, &d);
		while (p < d.len) {
			size_t n = strcspn(d.buf + p, "\n");
			astra_buf_addf(&text, "// astra-cc: %.*s\n", (int)n, d.buf + p);
			p += n + 1;
		}
		astra_buf_release(&d);
	}
	astra_trace(ASTRA_TRACE_DRIVER, "told ccache:\n%s", text.buf);
	if (inv->cl.output && strcmp(inv->cl.output, "-")) {
		FILE *f = fopen(inv->cl.output, "a");
		if (!f || fwrite(text.buf, 1, text.len, f) != text.len || fclose(f) != 0) {
			/* ccache would hash the plain text and cache an object it cannot tell apart: fail the step. */
			error("cannot append to %s: %s", inv->cl.output, strerror(errno));
			status = 1;
		}
	} else {
		fwrite(text.buf, 1, text.len, stdout);
		fflush(stdout);
	}
	astra_buf_release(&text);
	astra_vec_clear(&comp.argv);
	astra_cmdline_release(&comp.cl);
	return status;
}

int astra_ccache_depend_mode(const char *ccache, const struct astra_invocation *inv)
{
	char *argv[] = { (char *)ccache, (char *)"--get-config", (char *)"depend_mode", NULL };
	struct astra_buf out = ASTRA_BUF_INIT;
	struct astra_run_opts ro;
	int on;
	if (!inv->cl.deps)
		return 0;
	memset(&ro, 0, sizeof(ro));
	ro.out = &out;
	ro.quiet = 1;
	ro.timeout = 10;
	on = astra_run(argv, &ro) == 0 && astra_starts_with(out.buf ? out.buf : "", "true");
	astra_buf_release(&out);
	return on;
}

/*
 * The prerequisite that turns ccache's direct mode off in depend mode:
 * ccache stats every prerequisite of the dependency file and gives up its
 * direct mode (no manifest entry) for one that is not a regular file.
 */
#define NO_DIRECT_MODE_DEP "/dev/null"

/* Add NO_DIRECT_MODE_DEP to the first rule of the dependency file at path.  0, or -1 (logged). */
static int add_dependency(const char *path)
{
	struct astra_buf b = ASTRA_BUF_INIT, out = ASTRA_BUF_INIT;
	char *tmp;
	size_t i;
	FILE *f;
	int ret = -1;

	if (astra_buf_read_file(&b, path, 64u << 20) < 0) {
		warning("ccache's depend mode: cannot read the dependency file %s: %s", path, strerror(errno));
		astra_buf_release(&b);
		return -1;
	}
	/* The first target's colon: followed by a blank or the end of the line. */
	for (i = 0; i < b.len; i++)
		if (b.buf[i] == ':' && (i + 1 == b.len || strchr(" \t\r\n", b.buf[i + 1])))
			break;
	if (i == b.len) {
		warning("ccache's depend mode: no rule in the dependency file %s", path);
		astra_buf_release(&b);
		return -1;
	}
	if (!strncmp(b.buf + i + 1, " " NO_DIRECT_MODE_DEP " ", strlen(NO_DIRECT_MODE_DEP) + 2)) {
		astra_buf_release(&b);
		return 0;
	}
	astra_buf_add(&out, b.buf, i + 1);
	astra_buf_adds(&out, " " NO_DIRECT_MODE_DEP);
	if (i + 1 == b.len || b.buf[i + 1] != ' ')
		astra_buf_addch(&out, ' ');
	astra_buf_add(&out, b.buf + i + 1, b.len - i - 1);
	/* Beside it, then renamed: the build never reads half a file. */
	tmp = xasprintf("%s.astra-cc.%ld", path, (long)getpid());
	f = fopen(tmp, "wx");
	if (f && fwrite(out.buf, 1, out.len, f) == out.len && fclose(f) == 0) {
		f = NULL;
		if (rename(tmp, path) == 0)
			ret = 0;
	}
	if (f)
		fclose(f);
	if (ret < 0) {
		warning("ccache's depend mode: cannot rewrite the dependency file %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	astra_buf_release(&out);
	astra_buf_release(&b);
	return ret;
}

int astra_ccache_depend_compile(struct astra_invocation *inv)
{
	char *depfile;
	int status;

	status = run_unmodified(inv);
	if (status != 0)
		return status;
	depfile = inv->cl.dep_file ? xstrdup(inv->cl.dep_file) : astra_subst_default_depfile(&inv->cl);
	if (!depfile || !strcmp(depfile, "-"))
		warning("%s: ccache's depend mode: the dependency file cannot be known; ccache may record the "
			"original's object for later builds (doc/ccache.md)", inv->cl.inputs.v[0]);
	else if (add_dependency(depfile) == 0)
		astra_trace(ASTRA_TRACE_DRIVER, "added %s to %s: ccache records no manifest entry",
			    NO_DIRECT_MODE_DEP, depfile);
	free(depfile);
	return status;
}
