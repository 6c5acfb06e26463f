/*
 * rule.h - what a rule is, and the kernel state that rules rewrite.
 *
 * A rule is a named source-to-source rewrite with a precondition.  Rules
 * compose: a candidate is a list of steps ("block-per-row,warp-reduce,
 * vectorize") applied in order to a working copy of the kernel, each step
 * reading the text the previous one produced.  The precondition and the
 * rewrite are one function, apply(): it either rewrites the working copy
 * and returns 1, or leaves it untouched, says why in `why` and returns 0.
 * `--explain` and the planner learn whether a rule applies by applying it
 * to a scratch copy.
 *
 * One file per rule (rules/r-*.c), one table (rules/registry.c).
 */
#ifndef ASTRA_RULE_H
#define ASTRA_RULE_H

#include "lib/buf.h"
#include "lib/vec.h"
#include "front/kernel.h"
#include "rules/syntax.h"

/*
 * The working copy.  `k` is the original as extraction saw it: its name,
 * parameters, template parameters and pragma do not change (a variant has
 * the same signature).  Everything else is the current state.
 */
struct astra_rk {
	const struct astra_kernel *k;
	char *text;                 /* the definition as rewritten so far */
	char *grid, *block, *shmem; /* the launch geometry the text expects; NULL: unknown */
	int own_geometry;           /* geometry differs from the pragma's: the variant carries it */
	unsigned helpers;           /* enum astra_helper bits the text needs */
	int cc;                     /* target compute capability (90), 0: unknown */
	/*
	 * A block size chosen per launch ("block-size=B1:B2"): block is then
	 * an expression, block_large the block at the shape with the most
	 * data, block_max the most threads any launch gets; else both 0.
	 */
	long block_large, block_max;
	struct astra_vec steps;     /* steps applied so far, as "name" or "name=arg" */
	struct astra_syn syn;       /* view of text; valid after astra_rk_parse() */
	int parsed;                 /* 1: syn is valid, -1: text did not parse */
	/*
	 * 1: text is in the rules' wording already (rules/canon.h), or was
	 * made so: a rule that declines it is not retried on a rewording.
	 */
	int canonical;
};

enum astra_rule_flags {
	RULE_GEOMETRY = 1 << 0, /* may give the variant its own launch geometry */
	RULE_SWEEP = 1 << 1,    /* takes an argument; args() lists the values worth trying */
	/*
	 * Not in the default pipeline: the planner's first round tries the
	 * pipelines with it besides those without it (a rewrite that pays on
	 * some shapes and costs on others, such as the online softmax).
	 */
	RULE_VARIANT = 1 << 2,
};

struct astra_rule {
	const char *name;
	const char *summary;    /* one line for --explain and doc/rules.md */
	unsigned flags;
	/*
	 * Position in a combination: steps are applied in increasing stage
	 * order, so that rules that reshape the kernel (geometry) run before
	 * rules that polish it (intrinsics, bounds).
	 */
	int stage;
	/* Comma-separated rules that rewrite the same code: never combined. */
	const char *excludes;
	/* For RULE_SWEEP: append the arguments worth trying to out. */
	void (*args)(struct astra_rk *rk, struct astra_vec *out);
	/*
	 * Rewrite rk.  Returns 1 when applied, 0 when the precondition does
	 * not hold (why says which, in words for --explain; rk unchanged), -1
	 * on an internal failure (why says which).
	 */
	int (*apply)(struct astra_rk *rk, const char *arg, struct astra_buf *why);
};

/* The registry (rules/registry.c). */
extern const struct astra_rule *const astra_rules[];
extern const size_t astra_nr_rules;
const struct astra_rule *astra_rules_find(const char *name);

/* --- the working copy (rules/engine.c) --- */

/* Start from the original kernel (its text and the pragma's launch). */
void astra_rk_init(struct astra_rk *rk, const struct astra_kernel *k, int cc);
void astra_rk_release(struct astra_rk *rk);
void astra_rk_copy(struct astra_rk *dst, const struct astra_rk *src);
/* Parse the current text (cached); 0, or -1 when it does not parse. */
int astra_rk_parse(struct astra_rk *rk);
/* Replace the text (takes ownership); the parse is redone on demand. */
void astra_rk_set_text(struct astra_rk *rk, char *text);
/* Apply edits (byte ranges of the current text) to the text; 0, or -1 when they overlap. */
int astra_rk_edit(struct astra_rk *rk, const struct astra_syn_edits *e);
/* The blanks that start the line holding byte off, up to off (malloc'd). */
char *astra_rk_line_indent(const struct astra_rk *rk, size_t off);
/*
 * An edit inserting `line` (no newline) on a line of its own just before
 * byte off, indented like the line holding off.
 */
void astra_rk_edit_line_before(const struct astra_rk *rk, size_t off, const char *line, struct astra_syn_edits *e);
/*
 * An edit deleting text[start, end) of `text`; when that leaves its line
 * blank, the whole line goes.
 */
void astra_edit_delete(const char *text, size_t start, size_t end, struct astra_syn_edits *e);
/* Replace the launch geometry (copies; NULL keeps a field) and mark it the variant's own. */
void astra_rk_set_launch(struct astra_rk *rk, const char *grid, const char *block, const char *shmem);

/*
 * Make the current launch geometry the variant's own (so that launch sites
 * use it even where the user's launch differs from the pragma's): needs
 * expressions of parameter names only.  Returns 0, or -1 with why set.
 */
int astra_rk_claim_geometry(struct astra_rk *rk, struct astra_buf *why);

/* The original's parameter named name, or NULL. */
const struct astra_param *astra_rk_param(const struct astra_rk *rk, const char *name, size_t len);
int astra_rk_is_tmpl_param(const struct astra_rk *rk, const char *name);
/* A type's text without cv-qualifiers, __restrict__ and blanks ("const T" -> "T"); malloc'd. */
char *astra_rk_bare_type(const char *type);
/* The same through the file's typedefs, `using` aliases and type macros ("floatX" -> "__nv_bfloat16"). */
char *astra_rk_resolve_type(const struct astra_rk *rk, const char *type);
/* Every pointer parameter resolves to float (rules/r-lower.c: the lowerings' check); else 0 with why. */
int astra_rk_float_buffers(struct astra_rk *rk, struct astra_buf *why);
/* The value of name in the pragma's types() set i, or NULL. */
const char *astra_rk_type_arg(const struct astra_rk *rk, size_t i, const char *name);
/*
 * Sizes in bytes of a type as instantiated: the smallest and largest over
 * the pragma's types() sets when it names a template parameter.  Returns 0,
 * or -1 when a size is unknown.
 */
int astra_rk_type_size(const struct astra_rk *rk, const char *type, int *min, int *max);
/*
 * Does expr (C++ text) use only what a generated host launcher can
 * evaluate: the kernel's scalar parameters and template parameters,
 * numbers, a few pure functions and type names (min, max, dim3, sizeof,
 * float), and the host-visible names of the kernel's file that the kernel
 * or its pragma uses (a `ceil_div`, a BLOCK_SIZE macro)?  Launch geometry
 * of a variant must.
 */
int astra_rk_params_only(const struct astra_rk *rk, const char *expr);
/*
 * Which of the names the kernel refers to that its file defines (functions,
 * macros, globals, transitively: struct astra_kernel's deps) has a text
 * naming one of words (whole identifiers, NULL-terminated): its name, and
 * in *word the word; NULL when none.  A rule that rewrites what the
 * thread and block indices mean in the kernel's body declines with it when
 * a helper reads them too (the helper would keep the old meaning).
 */
const char *astra_rk_dep_naming(const struct astra_rk *rk, const char *const *words, const char **word);
/* The block size when it is an integer literal, else 0. */
long astra_rk_block_literal(const struct astra_rk *rk);
/* The block size at the shape with the most data (literal or chosen per launch), else 0. */
long astra_rk_block_at_largest(const struct astra_rk *rk);
/* The most threads per block any launch gets (literal or chosen per launch), else 0. */
long astra_rk_block_max(const struct astra_rk *rk);
/* expr at the pragma's shape s; -1 when it cannot be evaluated. */
long long astra_rk_at_shape(const struct astra_rk *rk, const char *expr, size_t s);
/*
 * Evaluate an integer expression of shape names for each of the pragma's
 * shapes; returns the largest value, or -1 when it cannot be evaluated
 * (the rules use it only to size caches and choose sweeps).
 */
long long astra_rk_max_over_shapes(const struct astra_rk *rk, const char *expr);
/*
 * The same expression at the shape with the most data (the largest sum of
 * the buffers' element counts: where the time goes, and the shape the
 * roofline is measured at); -1 when something cannot be evaluated.
 */
long long astra_rk_at_largest_shape(const struct astra_rk *rk, const char *expr);

/*
 * Apply a list of steps ("a,b=2,c") to a fresh working copy of k.
 * Returns 1 and fills out (the caller releases it), 0 when a step
 * declines (why says which and why), -1 on failure.
 */
int astra_rules_build(const struct astra_kernel *k, int cc, const char *steps,
		      struct astra_variant *out, struct astra_buf *why);
/* Apply one step (name or name=arg) to rk. Same returns as apply(). */
int astra_rk_step(struct astra_rk *rk, const char *step, struct astra_buf *why);
/* The variant text of rk: helpers, own launch pragma, kernel. */
void astra_rk_finish(struct astra_rk *rk, struct astra_variant *out);

#endif
