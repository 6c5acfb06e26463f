/*
 * split.h - compile-and-link commands (`nvcc app.cu -lcublas -o app`,
 * `nvcc a.cu b.cu -o app`): the annotated sources compiled apart through
 * the build path, then the link as nvcc does it (doc/astra-cc.1,
 * COMPILE AND LINK).
 */
#ifndef ASTRA_SPLIT_H
#define ASTRA_SPLIT_H

#include "lib/nvccopts.h"

/*
 * Split inv, a compile-and-link command (inv->cl.link): each .cu input
 * that mentions `#pragma astra` is compiled with the command's flags and
 * `-c` into a private workspace by a child astra-cc, then the command runs
 * with those objects in place of their sources.  Returns 0 when every part
 * succeeded (their output printed); -1 when the command is not split (no
 * annotated input, an option that names files after the inputs, a
 * source named twice) or a part failed: the caller runs the command as
 * written.
 */
int astra_driver_split(const struct astra_invocation *inv);

#endif
