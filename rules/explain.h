/*
 * explain.h - `astra-cc --explain`: which rules apply to a kernel and why
 * the others do not, and what the planner would try first.
 */
#ifndef ASTRA_EXPLAIN_H
#define ASTRA_EXPLAIN_H

#include "astra-cc/buf.h"
#include "passes/kernel.h"

/* The explanation for one kernel, as text, appended to out. */
void astra_rules_explain(const struct astra_kernel *k, int cc, struct astra_buf *out);

#endif
