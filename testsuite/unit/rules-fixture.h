/*
 * rules-fixture.h - test-only: build struct astra_kernel from a .cu file
 * without libclang, so the rules' tests need neither extraction nor a GPU.
 *
 * It reads the __global__ definitions of a file with the rules' own lexer
 * and the `#pragma astra` lines above each with a small clause reader
 * (launch, types, shapes, scalars, tune, noalias; other clauses are
 * skipped).  It is not the product's extraction and makes no attempt at
 * diagnostics: a test file it cannot read is a test bug.
 */
#ifndef ASTRA_RULES_FIXTURE_H
#define ASTRA_RULES_FIXTURE_H

#include "passes/kernel.h"

struct fixture {
	char *text;                  /* the file */
	size_t len;
	struct astra_kernel *kernels;
	size_t nr;
};

/* Returns 0, or -1 (message on stderr). */
int fixture_load(struct fixture *fx, const char *path);
int fixture_load_text(struct fixture *fx, const char *text);
void fixture_release(struct fixture *fx);
const struct astra_kernel *fixture_kernel(const struct fixture *fx, const char *name);
void fixture_variant_release(struct astra_variant *v);

#endif
