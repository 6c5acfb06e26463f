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
 *   #pragma astra bytes(2*tokens*hidden*sizeof(T))
 *
 * The annotation macro ASTRA(clauses) (include/astra-cc.h) is the same:
 * front/extract.c hands this parser the text between its parentheses.
 *
 * Every expression is kept as C++ text: test programs emit it verbatim, so
 * nvcc evaluates it and astra-cc needs no expression evaluator.  The parser
 * only checks the clause structure and the balance of (), [], {} and
 * template <> brackets; a comma inside brackets never splits a list.
 *
 * This module is pure (no I/O) so it can be fuzzed
 * (testsuite/fuzz/fuzz-pragma.c).
 */
#ifndef ASTRA_PRAGMA_H
#define ASTRA_PRAGMA_H

#include <stddef.h>

/* Where a clause item was written (1-based), for diagnostics. */
struct astra_pos {
	unsigned line, col;
};

/*
 * name=value; value is C++ text (an expression or, in types(), a type),
 * with comments removed and each run of blanks turned into one space.
 */
struct astra_assign {
	char *name;
	char *value;
	struct astra_pos pos;       /* of name */
};

/* One shapes(...) or types(...) clause: a set of assignments. */
struct astra_assign_set {
	struct astra_assign *items;
	size_t nr, alloc;
	struct astra_pos pos;       /* of the clause keyword */
};

/* buffers(name[count]): count is an expression of scalars and shape names. */
struct astra_bufspec {
	char *name;
	char *count;
	struct astra_pos pos;
};

/* range(name: lo .. hi): input values drawn from [lo, hi]. */
struct astra_range {
	char *name;
	char *lo, *hi;
	struct astra_pos pos;
};

/* tolerance([name:] rtol=R, atol=A): name NULL means every output. */
struct astra_tolerance {
	char *name;
	double rtol, atol; /* negative: not given */
	struct astra_pos pos;
};

/* tune(NAME: v1 v2 ...): values a tunable may take. */
struct astra_tunable {
	char *name;
	char **values;
	size_t nr, alloc;
	struct astra_pos pos;
};

enum astra_pragma_flag {
	ASTRA_PRAGMA_OPTIMIZE = 1 << 0, /* `optimize` (set by any clause other than `off`) */
	ASTRA_PRAGMA_OFF = 1 << 1,      /* `off`: leave this kernel alone */
	ASTRA_PRAGMA_NOALIAS = 1 << 2,  /* `noalias`: pointer arguments never overlap */
};

/*
 * Everything the `#pragma astra` lines of one kernel say.  Every string and
 * array is owned by the struct (astra_pragma_release frees them).
 */
struct astra_pragma {
	unsigned flags;
	struct astra_assign_set *shapes;
	size_t nr_shapes, alloc_shapes;
	struct astra_bufspec *buffers;
	size_t nr_buffers, alloc_buffers;
	char **outputs;
	struct astra_pos *output_pos;   /* parallel to outputs */
	size_t nr_outputs, alloc_outputs, alloc_output_pos;
	char *grid, *block, *shmem; /* launch(...) expressions; NULL when absent */
	struct astra_pos launch_pos;
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
	char *bytes;                /* bytes(expr): bytes a launch moves, when the buffers overstate it; or NULL */
	/* Where the pragma block starts (first `#pragma astra` line). */
	unsigned line;
	/* Number of clauses parsed (0: only bare `#pragma astra` lines). */
	unsigned nr_clauses;
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
 * Parse the text after `#pragma astra` on one directive line (or inside
 * the parentheses of one ASTRA(...), which may span lines) into p,
 * adding to what earlier lines gave.  text may still contain the
 * directive's backslash-newline continuations and comments: they count as
 * blanks, and line/col follow them.  file, line and col locate text[0]
 * for diagnostics (file may be NULL: "<pragma>").  A malformed clause adds
 * one warning that points at the offending token and says what was
 * expected, the rest of the line is ignored, and -1 is returned (p keeps
 * what parsed before the mistake).
 */
int astra_pragma_parse(struct astra_pragma *p, const char *text, const char *file,
		       unsigned line, unsigned col, struct astra_diags *diags);

/*
 * Check a complete pragma against the kernel's parameters: each buffer and
 * output names a pointer parameter, each pointer parameter has a buffer,
 * outputs are given and do not point to const, each scalar parameter gets
 * a value (from every shape, or from scalars), a launch geometry is given,
 * a template gets types() for its parameters without defaults and a
 * non-template none (of these, only what is given is checked when the
 * pragma is left to a capture: astra_pragma_by_capture),
 * range() and tolerance() name parameters and outputs.  A pragma with
 * `off` is not checked.  Diagnostics point at the offending clause item
 * (or the pragma's first line).  Returns 0 or -1.
 * param_names/param_is_ptr describe the kernel's parameters in order
 * (param_is_ptr[i]: 0 scalar, 1 pointer, 2 pointer to const; a name may be
 * NULL or "" for an unnamed parameter); tmpl_names its template parameters
 * (nr_tmpl may be 0), tmpl_optional[i] non-zero when parameter i has a
 * default argument, so that types() need not give it (may be NULL).
 */
int astra_pragma_check(const struct astra_pragma *p, const char *file,
		       char *const *param_names, const int *param_is_ptr, size_t nr_params,
		       char *const *tmpl_names, const int *tmpl_optional, size_t nr_tmpl,
		       struct astra_diags *diags);

/*
 * Does the pragma leave the kernel's description to a capture
 * (doc/capture.md)?  True when it gives none of shapes(), buffers() and
 * launch(): `#pragma astra optimize` alone, or with clauses no run can
 * show (outputs, noalias, tolerance, range, tune, flops, bytes, types).
 * astra_pragma_check() then does not ask for what a capture supplies
 * (element counts, outputs, scalar values, the launch, types), and the
 * test shapes come from the kernel's captured launches.
 */
int astra_pragma_by_capture(const struct astra_pragma *p);

/*
 * Canonical text of the pragma (for the key and for --list-kernels): one
 * line, clauses in a fixed order (flags, shapes, buffers, outputs, launch,
 * types, scalars, range, tolerance, tune, flops), items in the order
 * written, expressions with blanks normalized.  Two pragmas that differ
 * only in blanks, comments, line splitting or clause order have the same
 * canonical text.  Returns a malloc'd string.
 */
char *astra_pragma_canonical(const struct astra_pragma *p);

/* Lookups; NULL / 0 when absent. */
const char *astra_assign_get(const struct astra_assign_set *set, const char *name);
const struct astra_bufspec *astra_pragma_buffer(const struct astra_pragma *p, const char *name);
int astra_pragma_is_output(const struct astra_pragma *p, const char *name);
/* The tolerance that applies to output name: the one given for it, else the one for every output. */
const struct astra_tolerance *astra_pragma_tolerance(const struct astra_pragma *p, const char *name);

void astra_diags_add(struct astra_diags *d, const char *file, unsigned line, unsigned col,
		     int is_error, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Turn every warning into an error (strict mode). */
void astra_diags_promote(struct astra_diags *d);
/* "file:line:col: warning: msg\n" for each, into a malloc'd string. */
char *astra_diags_format(const struct astra_diags *d);
void astra_diags_release(struct astra_diags *d);

#endif
