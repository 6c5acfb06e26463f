/*
 * nvccopts.c - the nvcc option table and the command-line model.
 *
 * The table is transcribed from `nvcc --help` (CUDA 13.0).  Adding an
 * option is one line; the code below never names an option except through
 * the table's flags, so that the model stays a table (as ccache's
 * compopt.c is).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/nvccopts.h"

#define A OPT_ARG
#define AT (OPT_ARG | OPT_ATTACHED)
#define DEV OPT_DEVICE
#define PP OPT_PREPROC
#define L OPT_LIST

static const struct astra_nvcc_opt table[] = {
	/* phases */
	{ "--cuda", "-cuda", OPT_PHASE, PHASE_OTHER },
	{ "--cubin", "-cubin", OPT_PHASE, PHASE_OTHER },
	{ "--fatbin", "-fatbin", OPT_PHASE, PHASE_OTHER },
	{ "--ptx", "-ptx", OPT_PHASE, PHASE_OTHER },
	{ "--optix-ir", "-optix-ir", OPT_PHASE, PHASE_OTHER },
	{ "--ltoir", "-ltoir", OPT_PHASE, PHASE_OTHER },
	{ "--preprocess", "-E", OPT_PHASE, PHASE_OTHER },
	{ "--generate-dependencies", "-M", OPT_PHASE | OPT_DEPS, PHASE_OTHER },
	{ "--generate-nonsystem-dependencies", "-MM", OPT_PHASE | OPT_DEPS, PHASE_OTHER },
	{ "--compile", "-c", OPT_PHASE, PHASE_COMPILE },
	{ "--device-c", "-dc", OPT_PHASE | DEV, PHASE_DC },
	{ "--device-w", "-dw", OPT_PHASE | DEV, PHASE_DW },
	{ "--device-link", "-dlink", OPT_PHASE, PHASE_OTHER },
	{ "--link", "-link", OPT_PHASE, PHASE_OTHER },
	{ "--lib", "-lib", OPT_PHASE, PHASE_OTHER },
	{ "--run", "-run", OPT_PHASE, PHASE_OTHER },
	/* dependencies */
	{ "--generate-dependencies-with-compile", "-MD", OPT_DEPS, 0 },
	{ "--generate-nonsystem-dependencies-with-compile", "-MMD", OPT_DEPS, 0 },
	{ "--dependency-output", "-MF", A | OPT_DEPS, 0 },
	{ "--generate-dependency-targets", "-MP", OPT_DEPS, 0 },
	{ "--dependency-target-name", "-MT", A | OPT_DEPS, 0 },
	/* files and paths */
	{ "--output-file", "-o", A | OPT_OUTPUT, 0 },
	{ "--pre-include", "-include", A | L | PP | DEV, 0 },
	{ "--objdir-as-tempdir", "-objtemp", 0, 0 },
	{ "--library", "-l", AT | L, 0 },
	{ "--define-macro", "-D", AT | L | PP | DEV, 0 },
	{ "--undefine-macro", "-U", AT | L | PP | DEV, 0 },
	{ "--include-path", "-I", AT | L | PP, 0 },
	{ "--system-include", "-isystem", A | L | PP, 0 },
	{ "--library-path", "-L", AT | L, 0 },
	{ "--output-directory", "-odir", A, 0 },
	{ "--compiler-bindir", "-ccbin", A | PP | DEV, 0 },
	{ "--allow-unsupported-compiler", "-allow-unsupported-compiler", PP, 0 },
	{ "--archiver-binary", "-arbin", A, 0 },
	{ "--cudart", "-cudart", A, 0 },
	{ "--cudadevrt", "-cudadevrt", A, 0 },
	{ "--libdevice-directory", "-ldir", A | DEV, 0 },
	{ "--target-directory", "-target-dir", A | DEV, 0 },
	{ "--use-local-env", "-use-local-env", 0, 0 },
	{ "--force-cl-env-setup", "-force-cl-env-setup", 0, 0 },
	{ "--options-file", "-optf", A | L | OPT_OPTFILE, 0 },
	/* code generation */
	{ "--profile", "-pg", 0, 0 },
	{ "--debug", "-g", 0, 0 },
	{ "--device-debug", "-G", DEV, 0 },
	{ "--generate-line-info", "-lineinfo", 0, 0 },
	{ "--optimization-info", "-opt-info", A | L, 0 },
	{ "--optimize", "-O", AT | DEV, 0 },
	{ "--Ofast-compile", "-Ofc", A | DEV, 0 },
	{ "--dopt", "-dopt", A | DEV, 0 },
	{ "--dlink-time-opt", "-dlto", DEV, 0 },
	{ "--lto", "-lto", DEV, 0 },
	{ "--gen-opt-lto", "-gen-opt-lto", DEV, 0 },
	{ "--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit", A, 0 },
	{ "--ftemplate-depth", "-ftemplate-depth", A | PP | DEV, 0 },
	{ "--no-exceptions", "-noeh", PP | DEV, 0 },
	{ "--shared", "-shared", 0, 0 },
	{ "--x", "-x", A | PP | DEV, 0 },
	{ "--std", "-std", A | PP | DEV, 0 },
	{ "--no-host-device-initializer-list", "-nohdinitlist", PP | DEV, 0 },
	{ "--no-host-device-move-forward", "-nohdmoveforward", PP | DEV, 0 },
	{ "--expt-relaxed-constexpr", "-expt-relaxed-constexpr", PP | DEV, 0 },
	{ "--extended-lambda", "-extended-lambda", PP | DEV, 0 },
	{ "--expt-extended-lambda", "-expt-extended-lambda", PP | DEV, 0 },
	{ "--machine", "-m", A | PP | DEV, 0 },
	{ "--m64", "-m64", 0, 0 },
	{ "--compiler-options", "-Xcompiler", A | L | PP | DEV | OPT_HOSTARGS, 0 },
	{ "--linker-options", "-Xlinker", A | L, 0 },
	{ "--archive-options", "-Xarchive", A | L, 0 },
	{ "--ptxas-options", "-Xptxas", A | L | DEV, 0 },
	{ "--nvlink-options", "-Xnvlink", A | L, 0 },
	{ "--static-global-template-stub", "-static-global-template-stub", A | PP | DEV, 0 },
	{ "--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility", A | DEV, 0 },
	{ "--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", PP, 0 },
	{ "--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker", 0, 0 },
	{ "--forward-unknown-opts", "-forward-unknown-opts", PP, 0 },
	{ "--dont-use-profile", "-noprof", 0, 0 },
	{ "--dryrun", "-dryrun", OPT_NEVER, 0 },
	{ "--verbose", "-v", 0, 0 },
	{ "--threads", "-t", AT, 0 },
	{ "--split-compile", "-split-compile", A, 0 },
	{ "--split-compile-extended", "-split-compile-extended", A, 0 },
	{ "--fdevice-syntax-only", "-fdevice-syntax-only", OPT_NEVER, 0 },
	{ "--fdevice-time-trace", "-fdevice-time-trace", A, 0 },
	{ "--keep", "-keep", 0, 0 },
	{ "--keep-dir", "-keep-dir", A, 0 },
	{ "--save-temps", "-save-temps", 0, 0 },
	{ "--clean-targets", "-clean", OPT_NEVER, 0 },
	{ "--time", "-time", A, 0 },
	{ "--run-args", "-run-args", A | L, 0 },
	{ "--input-drive-prefix", "-idp", A, 0 },
	{ "--dependency-drive-prefix", "-ddp", A, 0 },
	{ "--drive-prefix", "-dp", A, 0 },
	{ "--no-align-double", "--no-align-double", DEV, 0 },
	{ "--no-device-link", "-nodlink", 0, 0 },
	/* targets */
	{ "--gpu-architecture", "-arch", A | OPT_ARCH | DEV, 0 },
	{ "--gpu-code", "-code", A | L | OPT_ARCH | DEV, 0 },
	{ "--generate-code", "-gencode", A | OPT_ARCH | DEV, 0 },
	{ "--relocatable-device-code", "-rdc", A | DEV, 0 },
	{ "--entries", "-e", A | L | DEV, 0 },
	{ "--maxrregcount", "-maxrregcount", A | DEV, 0 },
	{ "--use_fast_math", "-use_fast_math", PP | DEV, 0 },
	{ "--ftz", "-ftz", A | DEV, 0 },
	{ "--prec-div", "-prec-div", A | DEV, 0 },
	{ "--prec-sqrt", "-prec-sqrt", A | DEV, 0 },
	{ "--fmad", "-fmad", A | DEV, 0 },
	{ "--extra-device-vectorization", "-extra-device-vectorization", DEV, 0 },
	{ "--default-stream", "-default-stream", A | PP | DEV, 0 },
	{ "--disable-warnings", "-w", 0, 0 },
	{ "--keep-device-functions", "-keep-device-functions", DEV, 0 },
	{ "--source-in-ptx", "-src-in-ptx", 0, 0 },
	{ "--restrict", "-restrict", DEV, 0 },
	{ "--Wreorder", "-Wreorder", 0, 0 },
	{ "--Wdefault-stream-launch", "-Wdefault-stream-launch", 0, 0 },
	{ "--Wmissing-launch-bounds", "-Wmissing-launch-bounds", 0, 0 },
	{ "--Wext-lambda-captures-this", "-Wext-lambda-captures-this", 0, 0 },
	{ "--Wno-deprecated-declarations", "-Wno-deprecated-declarations", 0, 0 },
	{ "--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets", 0, 0 },
	{ "--Werror", "-Werror", A | L, 0 },
	{ "--resource-usage", "-res-usage", 0, 0 },
	{ "--extensible-whole-program", "-ewp", DEV, 0 },
	{ "--no-compress", "-no-compress", 0, 0 },
	{ "--qpp-config", "-qpp-config", A, 0 },
	{ "--compile-as-tools-patch", "-astoolspatch", DEV, 0 },
	{ "--list-gpu-code", "-code-ls", OPT_NEVER, 0 },
	{ "--list-gpu-arch", "-arch-ls", OPT_NEVER, 0 },
	{ "--display-error-number", "-err-no", 0, 0 },
	{ "--no-display-error-number", "-no-err-no", 0, 0 },
	{ "--diag-error", "-diag-error", A | L, 0 },
	{ "--diag-suppress", "-diag-suppress", A | L, 0 },
	{ "--diag-warn", "-diag-warn", A | L, 0 },
	{ "--host-linker-script", "-hls", A, 0 },
	{ "--augment-host-linker-script", "-aug-hls", 0, 0 },
	{ "--relocatable-link", "-r", OPT_NEVER, 0 },
	{ "--brief-diagnostics", "-brief-diag", A, 0 },
	{ "--jump-table-density", "-jtd", A | DEV, 0 },
	{ "--relocatable-ptx", "-reloc-ptx", DEV, 0 },
	{ "--device-stack-protector", "-device-stack-protector", A | DEV, 0 },
	{ "--compress-mode", "-compress-mode", A, 0 },
	{ "--frandom-seed", "-frandom-seed", A, 0 },
	{ "--sanitize", "-sanitize", A | DEV, 0 },
	{ "--jobserver", "-jobserver", 0, 0 },
	{ "--help", "-h", OPT_NEVER, 0 },
	{ "--version", "-V", OPT_NEVER, 0 },
};

#undef A
#undef AT
#undef DEV
#undef PP
#undef L

const struct astra_nvcc_opt *astra_nvccopt_find(const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].lng, name) || !strcmp(table[i].shrt, name))
			return &table[i];
	return NULL;
}

int astra_nvcc_takes_input(const char *name)
{
	/* Tried one by one with nvcc 13.0 (-dryrun): the suffixes it does not refuse. */
	static const char *const suffixes[] = {
		"cu", "c", "cc", "cxx", "cpp", "i", "ii", "cup", "ptx", "cubin", "fatbin", "ltoir",
		"o", "obj", "a", "lib", "res", "so", "s", "S",
	};
	const char *dot = strrchr(astra_basename(name), '.');
	size_t i;
	if (!dot)
		return 0;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strcmp(dot + 1, suffixes[i]))
			return 1;
	return 0;
}

/* An option with an attached value: "-DFOO" -> -D, value "FOO". */
static const struct astra_nvcc_opt *find_attached(const char *tok, const char **value)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		size_t n = strlen(table[i].shrt);
		if ((table[i].flags & OPT_ATTACHED) && !strncmp(tok, table[i].shrt, n) && tok[n]) {
			*value = tok + n;
			return &table[i];
		}
	}
	return NULL;
}

static void expand_env(struct astra_vec *out, const char *var)
{
	const char *v = getenv(var);
	if (v && *v)
		astra_vec_split_shell(out, v);
}

/*
 * Append args to out, replacing --options-file F by F's contents.  Files
 * that cannot be read are left as options (nvcc will report them).
 */
static int expand_options_files(struct astra_vec *out, char *const *args, size_t n, int depth)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const struct astra_nvcc_opt *opt;
		const char *value = NULL;
		char *name = xstrdup(args[i]);
		char *eq = strchr(name, '=');
		opt = astra_nvccopt_find(name);
		if (!opt && eq) {
			*eq = '\0';
			opt = astra_nvccopt_find(name);
			if (opt)
				value = eq + 1;
		}
		if (opt && (opt->flags & OPT_OPTFILE) && depth < 8) {
			if (!value && i + 1 < n)
				value = args[++i];
			if (value) {
				char *files = xstrdup(value), *f, *save = NULL;
				for (f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
					struct astra_buf b = ASTRA_BUF_INIT;
					struct astra_vec sub = ASTRA_VEC_INIT;
					if (astra_buf_read_file(&b, f, 1 << 24) < 0) {
						astra_buf_release(&b);
						free(files);
						free(name);
						return -1;
					}
					astra_vec_split_shell(&sub, b.buf);
					if (expand_options_files(out, sub.v, sub.nr, depth + 1) < 0) {
						astra_vec_clear(&sub);
						astra_buf_release(&b);
						free(files);
						free(name);
						return -1;
					}
					astra_vec_clear(&sub);
					astra_buf_release(&b);
				}
				free(files);
			}
			free(name);
			continue;
		}
		free(name);
		astra_vec_push(out, args[i]);
	}
	return 0;
}

static int is_cuda_source(const char *path)
{
	return astra_ends_with(path, ".cu");
}

static void add_arch_list(struct astra_vec *archs, const char *list)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	for (tok = strtok_r(copy, ",[]", &save); tok; tok = strtok_r(NULL, ",[]", &save))
		if (*tok && astra_vec_find(archs, tok) < 0)
			astra_vec_push(archs, tok);
	free(copy);
}

static void note_arch(struct astra_cmdline *cl, const struct astra_nvcc_opt *opt, const char *value)
{
	if (!strcmp(opt->shrt, "-gencode")) {
		/* arch=compute_90,code=[sm_90,compute_90] or code=sm_90 */
		const char *code = strstr(value, "code=");
		const char *arch = strstr(value, "arch=");
		if (code)
			add_arch_list(&cl->archs, code + 5);
		else if (arch)
			add_arch_list(&cl->archs, arch + 5);
		return;
	}
	if (!strcmp(opt->shrt, "-arch")) {
		struct astra_arch a;
		if (astra_arch_parse(value, 0, &a) == ASTRA_ARCH_SM) {
			/* -arch=sm_90a alone: code=sm_90a,compute_90. */
			char *ptx = xasprintf("compute_%d", a.cc);
			add_arch_list(&cl->archs, value);
			add_arch_list(&cl->archs, ptx);
			free(ptx);
			return;
		}
	}
	add_arch_list(&cl->archs, value);
}

void astra_invocation_command(const struct astra_invocation *inv, char *const *argv, size_t argc,
			      struct astra_vec *out)
{
	if (inv->launcher.nr)
		astra_vec_pushv(out, inv->launcher.v, inv->launcher.nr);
	astra_vec_pushv(out, argv, argc);
}

void astra_cmdline_release(struct astra_cmdline *cl)
{
	astra_vec_clear(&cl->args);
	astra_vec_clear(&cl->expanded);
	astra_vec_clear(&cl->inputs);
	astra_vec_clear(&cl->device_flags);
	astra_vec_clear(&cl->preproc_flags);
	astra_vec_clear(&cl->archs);
	astra_vec_clear(&cl->unknown);
	free(cl->output);
	free(cl->dep_file);
	memset(cl, 0, sizeof(*cl));
}

int astra_cmdline_parse(struct astra_cmdline *cl, int argc, char *const *argv)
{
	size_t i, nr_phase = 0;
	struct astra_vec env_pre = ASTRA_VEC_INIT, env_post = ASTRA_VEC_INIT;

	memset(cl, 0, sizeof(*cl));
	astra_vec_init(&cl->args);
	astra_vec_init(&cl->expanded);
	astra_vec_init(&cl->inputs);
	astra_vec_init(&cl->device_flags);
	astra_vec_init(&cl->preproc_flags);
	astra_vec_init(&cl->archs);
	astra_vec_init(&cl->unknown);
	cl->input_argi = -1;

	if (argc > 1)
		astra_vec_pushv(&cl->args, argv + 1, (size_t)argc - 1);
	expand_env(&env_pre, "NVCC_PREPEND_FLAGS");
	expand_env(&env_post, "NVCC_APPEND_FLAGS");
	if (expand_options_files(&cl->expanded, env_pre.v, env_pre.nr, 0) < 0 ||
	    expand_options_files(&cl->expanded, cl->args.v, cl->args.nr, 0) < 0 ||
	    expand_options_files(&cl->expanded, env_post.v, env_post.nr, 0) < 0)
		cl->reason = "an options file cannot be read";
	astra_vec_clear(&env_pre);
	astra_vec_clear(&env_post);

	for (i = 0; i < cl->expanded.nr; i++) {
		const char *tok = cl->expanded.v[i];
		const char *value = NULL;
		const struct astra_nvcc_opt *opt;
		char *name;

		if (tok[0] != '-' || !tok[1]) {
			if (!strcmp(tok, "-"))
				cl->reason = "input from standard input";
			astra_vec_push(&cl->inputs, tok);
			continue;
		}
		opt = astra_nvccopt_find(tok);
		if (!opt && strchr(tok, '=')) {
			name = xstrndup(tok, strcspn(tok, "="));
			opt = astra_nvccopt_find(name);
			free(name);
			if (opt && (opt->flags & OPT_ARG))
				value = strchr(tok, '=') + 1;
			else
				opt = NULL;
		}
		if (!opt)
			opt = find_attached(tok, &value);
		if (!opt) {
			astra_vec_push(&cl->unknown, tok);
			continue;
		}
		if ((opt->flags & OPT_ARG) && !value) {
			if (i + 1 >= cl->expanded.nr) {
				cl->reason = "an option lacks its value";
				break;
			}
			value = cl->expanded.v[++i];
		}

		if (opt->flags & OPT_PHASE) {
			nr_phase++;
			if (cl->phase != opt->phase && cl->phase != PHASE_NONE)
				cl->reason = "several phase options";
			cl->phase = opt->phase;
			cl->phase_opt = opt->shrt;
		}
		if (opt->flags & OPT_NEVER) {
			if (!strcmp(opt->shrt, "-V"))
				cl->version = 1;
			else if (!strcmp(opt->shrt, "-h"))
				cl->help = 1;
			else if (!strcmp(opt->shrt, "-dryrun"))
				cl->dryrun = 1;
			if (!cl->reason)
				cl->reason = opt->lng;
		}
		if (!strcmp(opt->shrt, "-v"))
			cl->verbose = 1;
		if (opt->flags & OPT_OUTPUT) {
			free(cl->output);
			cl->output = xstrdup(value);
		}
		if (opt->flags & OPT_DEPS) {
			if (!strcmp(opt->shrt, "-MD") || !strcmp(opt->shrt, "-MMD"))
				cl->deps = 1;
			else if (!strcmp(opt->shrt, "-MF")) {
				free(cl->dep_file);
				cl->dep_file = xstrdup(value);
			}
		}
		if (opt->flags & OPT_ARCH)
			note_arch(cl, opt, value);
		if (opt->flags & OPT_DEVICE) {
			if (value)
				astra_vec_pushf(&cl->device_flags, "%s=%s", opt->lng, value);
			else
				astra_vec_push(&cl->device_flags, opt->lng);
		}
		if (opt->flags & OPT_PREPROC) {
			astra_vec_push(&cl->preproc_flags, opt->shrt);
			if (value)
				astra_vec_push(&cl->preproc_flags, value);
		}
	}

	if (cl->reason)
		return 0;
	if (cl->phase != PHASE_COMPILE && cl->phase != PHASE_DC && cl->phase != PHASE_DW) {
		cl->reason = cl->phase == PHASE_NONE ? "a link" : "not a compile to an object file";
		cl->link = cl->phase == PHASE_NONE;
		return 0;
	}
	if (cl->inputs.nr != 1) {
		cl->reason = cl->inputs.nr ? "several input files" : "no input file";
		return 0;
	}
	if (!is_cuda_source(cl->inputs.v[0]) && astra_vec_find(&cl->preproc_flags, "-x") < 0) {
		cl->reason = "the input is not a .cu file";
		return 0;
	}
	/* The input must be an argument of its own, so it can be replaced. */
	for (i = 0; i < cl->args.nr; i++)
		if (!strcmp(cl->args.v[i], cl->inputs.v[0]))
			cl->input_argi = (long)i;
	if (cl->input_argi < 0)
		cl->reason = "the input file is not on the command line";
	(void)nr_phase;
	return 0;
}

