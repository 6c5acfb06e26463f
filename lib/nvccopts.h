/*
 * nvccopts.h - a model of the nvcc command line, driven by one table.
 *
 * astra-cc never rewrites an nvcc command it does not understand.  This
 * module turns argv into a description: which phase nvcc runs, which inputs
 * it reads, where the outputs go, which options change device code (they
 * enter the kernel key), and which options the test harness must repeat
 * (include paths, defines, the language standard).  If anything makes the
 * command more than "compile one .cu file" (several inputs, -E, -M, --dryrun,
 * -ptx, a link, --version, ...), `reason` says why, and the driver executes
 * nvcc unchanged.
 *
 * Unknown options are kept and passed through; they make the command
 * unrewritable only when they could swallow the input file, which the model
 * cannot tell.  Options files (--options-file/-optf) and the environment
 * variables NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS are expanded for the
 * analysis; the command that runs keeps them as the user wrote them, since
 * nvcc applies them itself.
 */
#ifndef ASTRA_NVCCOPTS_H
#define ASTRA_NVCCOPTS_H

#include "lib/vec.h"

enum astra_opt_flags {
	OPT_ARG = 1 << 0,       /* takes a value: -o f, -o=f, --output-file f, --output-file=f */
	OPT_ATTACHED = 1 << 1,  /* the value may be attached: -DFOO, -I/x, -O3 */
	OPT_PHASE = 1 << 2,     /* selects what nvcc produces (see enum astra_phase) */
	OPT_DEVICE = 1 << 3,    /* changes device code: part of the kernel key */
	OPT_PREPROC = 1 << 4,   /* preprocessor input: repeated in test programs */
	OPT_DEPS = 1 << 5,      /* dependency-file generation */
	OPT_NEVER = 1 << 6,     /* its presence means: do not rewrite */
	OPT_OPTFILE = 1 << 7,   /* --options-file */
	OPT_ARCH = 1 << 8,      /* -arch / -code / -gencode */
	OPT_OUTPUT = 1 << 9,    /* -o */
	OPT_LIST = 1 << 10,     /* value is a comma-separated list */
	OPT_HOSTARGS = 1 << 11, /* -Xcompiler: options for the host compiler */
};

enum astra_phase {
	PHASE_NONE = 0, /* no phase option: nvcc links */
	PHASE_COMPILE,  /* -c */
	PHASE_DC,       /* -dc */
	PHASE_DW,       /* -dw */
	PHASE_OTHER,    /* -E, -M, -ptx, -cubin, -fatbin, -dlink, -lib, -run, ... */
};

struct astra_nvcc_opt {
	const char *lng;  /* "--output-file" */
	const char *shrt; /* "-o" */
	unsigned flags;
	enum astra_phase phase;
};

/* Look an option up by spelling (no value attached); NULL if unknown. */
const struct astra_nvcc_opt *astra_nvccopt_find(const char *name);

/*
 * Would nvcc take a file of this name as an input?  nvcc decides by the
 * suffix alone (.cu .c .cc .cxx .cpp .i .ii .cup .ptx .cubin .fatbin
 * .ltoir .o .obj .a .lib .res .so .s .S, as nvcc 13.0 accepts them) and
 * refuses any other name ("Don't know what to do with ...").  The driver
 * uses this to tell an input from a launcher program (`astra-cc ccache
 * nvcc ...`).
 */
int astra_nvcc_takes_input(const char *name);

struct astra_cmdline {
	/* As given, without argv[0]: what nvcc receives. */
	struct astra_vec args;
	/* The analysed form: env prepend + args with options files expanded + env append. */
	struct astra_vec expanded;

	enum astra_phase phase;
	const char *phase_opt;     /* spelling of the phase option, for messages */
	struct astra_vec inputs;   /* input files (from expanded) */
	long input_argi;           /* index in args of the single input, or -1 */
	char *output;              /* -o value, or NULL */
	int deps;                  /* -MD or -MMD seen */
	char *dep_file;            /* -MF value */
	int version, verbose, help, dryrun;

	struct astra_vec device_flags; /* normalized, for the key */
	struct astra_vec preproc_flags;/* -D -U -I -isystem -include -std -x ..., for harnesses */
	struct astra_vec archs;    /* "sm_90", "compute_90", "native", ... as named */
	struct astra_vec unknown;  /* unknown options, passed through */

	/* NULL for a single-.cu compile that astra-cc may rewrite. */
	const char *reason;
	/* No phase option and nothing else in the way: nvcc compiles (what needs it) and links. */
	int link;
};

/*
 * One wrapped compile, as the driver hands it to the build path: the real
 * nvcc, the arguments as nvcc should see them, and their model.
 */
struct astra_invocation {
	char *nvcc;               /* the real nvcc */
	struct astra_vec argv;    /* argv[0] = nvcc, then the user's arguments */
	struct astra_cmdline cl;  /* the model of those arguments */
	/*
	 * Programs that run the compile, before nvcc (`astra-cc ccache nvcc
	 * ...`: ccache), or empty.  Every nvcc command astra-cc runs for the
	 * compile goes through them.
	 */
	struct astra_vec launcher;
};

/*
 * The command that runs argv (whose argv[0] is the compiler) for inv:
 * inv's launcher, then argv.  Appends to out.
 */
void astra_invocation_command(const struct astra_invocation *inv, char *const *argv, size_t argc,
			      struct astra_vec *out);

/*
 * Parse argv (argc entries; argv[0] is the compiler and is skipped).
 * Options files are read relative to the current directory.  Returns 0; a
 * command the model cannot analyse gets a reason, not an error.
 */
int astra_cmdline_parse(struct astra_cmdline *cl, int argc, char *const *argv);
void astra_cmdline_release(struct astra_cmdline *cl);


#endif
