/*
 * explain.h - `astra-cc --explain FILE.cu [nvcc flags]`: for each annotated
 * kernel, which rules apply, why the others do not, and what the planner
 * would try first.  Nothing is compiled or run.
 */
#ifndef ASTRA_EXPLAIN_H
#define ASTRA_EXPLAIN_H

#include "astra-cc/buf.h"
#include "passes/kernel.h"

/* The explanation for one kernel, as text, appended to out. */
void astra_rules_explain(const struct astra_kernel *k, int cc, struct astra_buf *out);

/* The --explain command (argv[0] is "--explain"). */
int astra_rules_explain_command(int argc, char **argv);

#endif
