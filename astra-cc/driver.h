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

/* The one function each astra-cc command implements. */
typedef int (*astra_command_fn)(int argc, char **argv);

#endif
