/*
 * split.c - a compile-and-link command split in two (see split.h).
 *
 * `nvcc $(FLAGS) app.cu -lcublas -o app` compiles and links in one
 * command, the usual form of small projects.  Each annotated .cu input is
 * compiled on its own, `-c` into a private workspace with the command's
 * own flags, by a child astra-cc (so it goes through the whole build path:
 * capture, lookup, substitution, queueing, and its own fallback); then the
 * command runs as written with those objects in place of their sources:
 * nvcc links them as it links the objects it would have made, and
 * compiles every other input itself.  What the children and the link print
 * is printed once they all succeeded; any failure runs the unmodified
 * command instead, so nvcc reports the user's errors itself.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "astra-cc/split.h"
#include "front/includes.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/workspace.h"
#include "passes/pipeline.h"

/* Options that write files named after the inputs, or change how inputs are taken. */
static const char *const refused[] = {
	"-keep", "--keep", "-save-temps", "--save-temps", "-keep-dir", "--keep-dir", "-odir",
	"--output-directory", "-x", "--x", "-MD", "-MMD", "-MF", "-MP", "-MT", "-M", "-MM",
	"--generate-dependencies-with-compile", "--generate-nonsystem-dependencies-with-compile",
	"--dependency-output", "--generate-dependency-targets", "--dependency-target-name",
};

static int refused_option(const char *arg)
{
	size_t i, n;
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		n = strlen(refused[i]);
		if (!strncmp(arg, refused[i], n) && (!arg[n] || arg[n] == '='))
			return 1;
	}
	return 0;
}

/* Is args[i] the output option (-o F, -o=F, --output-file F, --output-file=F)?  Tokens it takes. */
static size_t output_tokens(const struct astra_vec *args, size_t i)
{
	const char *a = args->v[i];
	if (!strcmp(a, "-o") || !strcmp(a, "--output-file"))
		return i + 1 < args->nr ? 2 : 1;
	if (astra_starts_with(a, "-o=") || astra_starts_with(a, "--output-file="))
		return 1;
	return 0;
}

/* The one index of path in args, or -1 (absent, or there more than once). */
static long only_index(const struct astra_vec *args, const char *path)
{
	long at = -1;
	size_t i;
	for (i = 0; i < args->nr; i++)
		if (!strcmp(args->v[i], path)) {
			if (at >= 0)
				return -1;
			at = (long)i;
		}
	return at;
}

struct piece {
	long argi;    /* the source's index in args */
	char *object; /* its object in the workspace */
};

/* Settings given on astra-cc's command line (--capture) reach the children through the environment. */
static void child_env(struct astra_vec *env)
{
	if (astra_config_bool(ASTRA_CFG_CAPTURE))
		astra_vec_push(env, "ASTRA_CC_CAPTURE=true");
	if (astra_config_bool(ASTRA_CFG_CAPTURE_DATA))
		astra_vec_push(env, "ASTRA_CC_CAPTURE_DATA=true");
}

static int compile_piece(const struct astra_invocation *inv, const char *self, const struct piece *p,
			 const struct astra_vec *env, struct astra_buf *out, struct astra_buf *err)
{
	const struct astra_vec *args = &inv->cl.args;
	struct astra_vec cmd = ASTRA_VEC_INIT;
	struct astra_run_opts ro;
	size_t i, n;
	int st;

	astra_vec_push(&cmd, self);
	astra_vec_pushv(&cmd, inv->launcher.v, inv->launcher.nr);
	astra_vec_push(&cmd, inv->nvcc);
	for (i = 0; i < args->nr; i++) {
		if ((n = output_tokens(args, i)) != 0) {
			i += n - 1;
			continue;
		}
		if (astra_vec_find(&inv->cl.inputs, args->v[i]) >= 0)
			continue;
		astra_vec_push(&cmd, args->v[i]);
	}
	astra_vec_push(&cmd, "-c");
	astra_vec_push(&cmd, args->v[p->argi]);
	astra_vec_push(&cmd, "-o");
	astra_vec_push(&cmd, p->object);
	memset(&ro, 0, sizeof(ro));
	ro.out = out;
	ro.err = err;
	ro.foreground = 1;
	ro.env_add = env->nr ? env->v : NULL;
	st = astra_run(cmd.v, &ro);
	astra_trace(ASTRA_TRACE_DRIVER, "compile-and-link: %s compiled apart to %s: status %d", args->v[p->argi],
		    p->object, st);
	astra_vec_clear(&cmd);
	return st;
}

static int link_pieces(const struct astra_invocation *inv, const struct piece *pieces, size_t nr,
		       struct astra_buf *out, struct astra_buf *err)
{
	struct astra_vec argv = ASTRA_VEC_INIT, cmd = ASTRA_VEC_INIT;
	struct astra_run_opts ro;
	size_t i;
	int st;

	astra_vec_pushv(&argv, inv->argv.v, inv->argv.nr);
	for (i = 0; i < nr; i++)
		astra_vec_set(&argv, (size_t)pieces[i].argi + 1, pieces[i].object);
	astra_invocation_command(inv, argv.v, argv.nr, &cmd);
	memset(&ro, 0, sizeof(ro));
	ro.out = out;
	ro.err = err;
	ro.foreground = 1;
	st = astra_run(cmd.v, &ro);
	astra_trace(ASTRA_TRACE_DRIVER, "compile-and-link: the link with %zu object%s in place: status %d", nr,
		    nr == 1 ? "" : "s", st);
	astra_vec_clear(&argv);
	astra_vec_clear(&cmd);
	return st;
}

int astra_driver_split(const struct astra_invocation *inv)
{
	const struct astra_cmdline *cl = &inv->cl;
	struct astra_search_path sp;
	struct piece *pieces = NULL;
	struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
	struct astra_vec env = ASTRA_VEC_INIT;
	char *ws = NULL, *self = NULL;
	size_t i, nr = 0;
	int ret = -1;

	if (!cl->link)
		return -1;
	for (i = 0; i < cl->args.nr; i++)
		if (refused_option(cl->args.v[i])) {
			astra_trace(ASTRA_TRACE_DRIVER, "compile-and-link: not split: %s", cl->args.v[i]);
			return -1;
		}
	memset(&sp, 0, sizeof(sp));
	astra_search_path_from_cmdline(cl, &sp);
	pieces = xcalloc(cl->inputs.nr ? cl->inputs.nr : 1, sizeof(*pieces));
	for (i = 0; i < cl->inputs.nr; i++) {
		const char *in = cl->inputs.v[i];
		long at;
		if (!astra_ends_with(in, ".cu") || !astra_pipeline_mentions_pragma(in, &sp))
			continue;
		at = only_index(&cl->args, in);
		if (at < 0 || astra_vec_find(&cl->inputs, in) != (long)i) {
			astra_trace(ASTRA_TRACE_DRIVER, "compile-and-link: not split: %s is not one argument of the command",
				    in);
			goto out;
		}
		pieces[nr++].argi = at;
	}
	if (!nr) {
		astra_trace(ASTRA_TRACE_DRIVER, "passthrough: a link; no input has #pragma astra");
		goto out;
	}
	if (!(self = astra_self_path()) || !(ws = astra_workspace_make("astra-cc-link-")))
		goto out;
	child_env(&env);
	for (i = 0; i < nr; i++) {
		char *base = xstrdup(astra_basename(cl->args.v[pieces[i].argi]));
		base[strlen(base) - 3] = '\0';
		pieces[i].object = xasprintf("%s/%zu-%s.o", ws, i, base);
		free(base);
		if (compile_piece(inv, self, &pieces[i], &env, &out, &err) != 0)
			goto out;
	}
	if (link_pieces(inv, pieces, nr, &out, &err) != 0)
		goto out;
	astra_log(ASTRA_LOG_INFO, "compile-and-link: %zu annotated source%s compiled apart, then linked", nr,
		  nr == 1 ? "" : "s");
	fwrite(out.buf, 1, out.len, stdout);
	fwrite(err.buf, 1, err.len, stderr);
	fflush(stdout);
	fflush(stderr);
	ret = 0;
out:
	if (ret < 0 && ws)
		astra_log(ASTRA_LOG_INFO, "compile-and-link: a part failed; running the command as written");
	if (ws)
		astra_workspace_remove(ws);
	for (i = 0; i < nr; i++)
		free(pieces[i].object);
	free(pieces);
	free(ws);
	free(self);
	astra_vec_clear(&env);
	astra_buf_release(&out);
	astra_buf_release(&err);
	astra_search_path_release(&sp);
	return ret;
}
