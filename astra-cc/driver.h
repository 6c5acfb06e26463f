/*
 * driver.h - the driver's own verbs: handing a compile to nvcc unchanged,
 * and the shape of astra-cc's commands.
 */
#ifndef ASTRA_DRIVER_H
#define ASTRA_DRIVER_H

#include "lib/nvccopts.h"

/*
 * Run nvcc with argv as given (replacing this process).  Never returns:
 * if nvcc cannot be executed, prints nvcc-like diagnostics and exits 127.
 */
ASTRA_NORETURN void astra_driver_passthrough(struct astra_invocation *inv);

/*
 * Wrap the compile argv[1..] (argv[0]: astra-cc) as `astra-cc ARGS` does:
 * the launcher form when argv[1] names a program, else masquerade.  Used
 * by commands that only change settings for one compile (--capture).
 */
int astra_driver_wrap_words(int argc, char **argv);

/* The one function each astra-cc command implements. */
typedef int (*astra_command_fn)(int argc, char **argv);

#endif
