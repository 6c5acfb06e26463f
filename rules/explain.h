/*
 * explain.h - for one annotated kernel: which rules apply, why the others
 * do not, and what the planner would try first.  Nothing is compiled or
 * run.  The command is astra-cc/cmd-explain.c; warmup prints it too.
 */
#ifndef ASTRA_EXPLAIN_H
#define ASTRA_EXPLAIN_H

#include "lib/buf.h"
#include "front/kernel.h"

/* The explanation for one kernel, as text, appended to out. */
void astra_rules_explain(const struct astra_kernel *k, int cc, struct astra_buf *out);

#endif
