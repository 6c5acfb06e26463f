/*
 * driver.h - what the driver hands to the compiler passes.
 */
#ifndef ASTRA_DRIVER_H
#define ASTRA_DRIVER_H

#include "astra-cc/nvccopts.h"

struct astra_invocation {
	char *nvcc;               /* the real nvcc */
	struct astra_vec argv;    /* argv[0] = nvcc, then the user's arguments */
	struct astra_cmdline cl;  /* the model of those arguments */
};

/*
 * Run nvcc with argv as given (replacing this process).  Never returns:
 * if nvcc cannot be executed, prints nvcc-like diagnostics and exits 127.
 */
ASTRA_NORETURN void astra_driver_passthrough(struct astra_invocation *inv);

/* The one function each astra-cc command implements. */
typedef int (*astra_command_fn)(int argc, char **argv);

#endif
