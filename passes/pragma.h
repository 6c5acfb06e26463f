/*
 * pragma.h - `#pragma astra` clauses: the grammar's data model and parser.
 *
 * The full grammar, with examples, is in doc/pragma.md.  In short, the
 * `#pragma astra` lines directly above a __global__ function (template
 * header included) describe it:
 *
 *   #pragma astra optimize
 *   #pragma astra shapes(rows=4096, cols=4096) shapes(rows=7, cols=5120)
 *   #pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
 *   #pragma astra outputs(out, residual)
 *   #pragma astra launch(grid=rows, block=256, shmem=0)
 *   #pragma astra types(T=__nv_bfloat16) types(T=float)
 *   #pragma astra scalars(eps=1e-6f)
 *   #pragma astra range(x: -4 .. 4)
 *   #pragma astra tolerance(out: rtol=2e-2, atol=1e-3)
 *   #pragma astra tune(VEC: 1 2 4 8)
 *   #pragma astra noalias
 *   #pragma astra flops(8*rows*cols)
 *
 * Every expression is kept as C++ text: test programs emit it verbatim, so
 * nvcc evaluates it and astra-cc needs no expression evaluator.  The parser
 * only checks balance of brackets and the clause structure.
 *
 * This module is pure (no I/O) so it can be fuzzed.
 */
#ifndef ASTRA_PRAGMA_H
#define ASTRA_PRAGMA_H

#include <stddef.h>

/* name=value; value is C++ text (an expression or, in types(), a type). */
struct astra_assign {
	char *name;
	char *value;
};

/* One shapes(...) or types(...) clause: a set of assignments. */
struct astra_assign_set {
	struct astra_assign *items;
	size_t nr, alloc;
};

/* buffers(name[count]): count is an expression of scalars and shape names. */
struct astra_bufspec {
	char *name;
	char *count;
};

/* range(name: lo .. hi): input values drawn from [lo, hi]. */
struct astra_range {
	char *name;
	char *lo, *hi;
};

/* tolerance([name:] rtol=R, atol=A): name NULL means every output. */
struct astra_tolerance {
	char *name;
	double rtol, atol; /* negative: not given */
};

/* tune(NAME: v1 v2 ...): values a tunable may take. */
struct astra_tunable {
	char *name;
	char **values;
	size_t nr, alloc;
};

enum astra_pragma_flag {
	ASTRA_PRAGMA_OPTIMIZE = 1 << 0, /* `optimize` (the default when any clause is given) */
	ASTRA_PRAGMA_OFF = 1 << 1,      /* `off`: leave this kernel alone */
	ASTRA_PRAGMA_NOALIAS = 1 << 2,  /* `noalias`: pointer arguments never overlap */
};

struct astra_pragma {
	unsigned flags;
	struct astra_assign_set *shapes;
	size_t nr_shapes, alloc_shapes;
	struct astra_bufspec *buffers;
	size_t nr_buffers, alloc_buffers;
	char **outputs;
	size_t nr_outputs, alloc_outputs;
	char *grid, *block, *shmem; /* launch(...) expressions; NULL when absent */
	struct astra_assign_set *types;
	size_t nr_types, alloc_types;
	struct astra_assign_set scalars;
	struct astra_range *ranges;
	size_t nr_ranges, alloc_ranges;
	struct astra_tolerance *tolerances;
	size_t nr_tolerances, alloc_tolerances;
	struct astra_tunable *tunables;
	size_t nr_tunables, alloc_tunables;
	char *flops;                /* flops(expr), or NULL */
	/* Where the pragma block starts (first `#pragma astra` line). */
	unsigned line;
};

/* A diagnostic about user input, printed GNU-style: file:line:col: kind: msg */
struct astra_diag {
	char *file;
	unsigned line, col;
	int is_error;   /* 0: warning */
	char *msg;
};

struct astra_diags {
	struct astra_diag *items;
	size_t nr, alloc;
};

void astra_pragma_init(struct astra_pragma *p);
void astra_pragma_release(struct astra_pragma *p);

/*
 * Parse the text after `#pragma astra` on one line (continuation lines
 * already joined) into p, adding to what earlier lines gave.  file, line and
 * col locate text[0] for diagnostics; a malformed clause adds a diagnostic
 * that points at the offending token and says what was expected, and
 * returns -1 (p keeps what parsed before the mistake).
 */
int astra_pragma_parse(struct astra_pragma *p, const char *text, const char *file,
		       unsigned line, unsigned col, struct astra_diags *diags);

/*
 * Check a complete pragma against the kernel's parameters: each buffer and
 * output names a pointer parameter, each pointer parameter has a buffer,
 * each scalar parameter gets a value (from shapes or scalars), at least one
 * shape and a launch geometry are given, templates get types.  Diagnostics
 * point at the pragma's first line.  Returns 0 or -1.
 * param_names/param_is_ptr describe the kernel's parameters in order;
 * tmpl_names its template parameters (may be 0).
 */
int astra_pragma_check(const struct astra_pragma *p, const char *file,
		       char *const *param_names, const int *param_is_ptr, size_t nr_params,
		       char *const *tmpl_names, size_t nr_tmpl, struct astra_diags *diags);

/* Canonical text of the pragma (for the key and for --list-kernels). */
char *astra_pragma_canonical(const struct astra_pragma *p);

/* Lookups; NULL / -1 when absent. */
const char *astra_assign_get(const struct astra_assign_set *set, const char *name);
const struct astra_bufspec *astra_pragma_buffer(const struct astra_pragma *p, const char *name);
int astra_pragma_is_output(const struct astra_pragma *p, const char *name);

void astra_diags_add(struct astra_diags *d, const char *file, unsigned line, unsigned col,
		     int is_error, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* "file:line:col: warning: msg\n" for each, into a malloc'd string. */
char *astra_diags_format(const struct astra_diags *d);
void astra_diags_release(struct astra_diags *d);

#endif
