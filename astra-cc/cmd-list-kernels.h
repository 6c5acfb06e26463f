/*
 * listkernels.h - `astra-cc --list-kernels FILE.cu [nvcc flags] [--json]`.
 *
 * Shows what astra-cc sees in a file: each annotated kernel with its
 * location, signature, canonical pragma, dependencies, the project headers
 * it can see, and its key for each target of the command line; then the
 * launch sites.  --json gives the same as one JSON object; --key-text adds
 * the exact text each key hashes (what debug_key writes during a build).
 *
 * Pragma mistakes are printed on stderr as GNU-style warnings.  The exit
 * status is 0 even then (the kernel would be compiled unchanged), except
 * in strict mode (`strict = true`), where they are errors and the status
 * is 1.  A file that cannot be read or parsed gives status 1; usage
 * errors 2.
 */
#ifndef ASTRA_LISTKERNELS_H
#define ASTRA_LISTKERNELS_H

/* argv[0] is "--list-kernels". */
int astra_list_kernels(int argc, char **argv);

#endif
