/*
 * kernel.h - what astra-cc knows about an annotated kernel and its TU.
 *
 * Filled by extract.c (the libclang adapter, the only file that includes
 * clang-c/Index.h); read by the key, substitution, test-program generation
 * and the rules.  Offsets are byte offsets into the file's text as read
 * from disk; lines and columns are 1-based as compilers print them.
 * Every string is owned by the struct that holds it.
 */
#ifndef ASTRA_KERNEL_H
#define ASTRA_KERNEL_H

#include "front/includes.h"
#include "front/pragma.h"

struct astra_param {
	char *name;
	char *type;       /* as written, e.g. "const T *__restrict__" */
	char *elem_type;  /* pointers: the pointee without cv/restrict, e.g. "T"; else NULL */
	int is_pointer;
	int is_const;     /* pointers: pointee is const */
};

enum astra_tok_kind {
	ASTRA_TOK_PUNCT,
	ASTRA_TOK_KEYWORD,
	ASTRA_TOK_IDENT,
	ASTRA_TOK_LITERAL,
	ASTRA_TOK_COMMENT,
};

/* One token of a kernel's definition, as libclang tokenizes it. */
struct astra_token {
	enum astra_tok_kind kind;
	char *text;
	size_t off;                 /* offset in the kernel's text */
	unsigned line, col;         /* in the file */
};

/*
 * What a kernel's text depends on in its file, resolved by extraction:
 * the macros, type aliases, __device__ functions and constants that the
 * kernel names (transitively), each as the compiler sees it at the
 * kernel's definition.  The rules read through them (an index from a
 * helper, an element type through a typedef); the key and the test
 * program use deps/dep_texts.  Text is as written, comments dropped.
 */
struct astra_macro {
	char *name;
	int function_like;
	char **params;              /* function-like: parameter names; `...` is "__VA_ARGS__" */
	size_t nr_params;
	int variadic;
	char *body;                 /* the replacement list, splices removed (lines kept) */
};

enum astra_alias_how { ASTRA_ALIAS_TYPEDEF, ASTRA_ALIAS_USING, ASTRA_ALIAS_MACRO };

struct astra_alias {
	char *name;
	char *type;                 /* the type it names as written: "__nv_bfloat16", "const float" */
	enum astra_alias_how how;
};

struct astra_func {
	char *name;
	char *ret;                  /* the return type as written, specifiers dropped: "float" */
	struct astra_param *params;
	size_t nr_params;
	char *body;                 /* "{ ... }" as written */
	int is_device;              /* __device__ (or __host__ __device__) */
	int is_template;            /* a function template: calls need deduction */
	int overloaded;             /* the file defines several functions of this name */
};

struct astra_const {
	char *name;
	char *type;                 /* "int", "constexpr"-free */
	char *init;                 /* the initializer's text */
};

struct astra_env {
	struct astra_macro *macros;
	size_t nr_macros;
	struct astra_alias *aliases;
	size_t nr_aliases;
	struct astra_func *funcs;
	size_t nr_funcs;
	struct astra_const *consts;
	size_t nr_consts;
};

/* Free one macro's strings (name, parameters, body) and clear it. */
void astra_macro_release(struct astra_macro *m);
void astra_env_release(struct astra_env *env);
const struct astra_macro *astra_env_macro(const struct astra_env *env, const char *name, size_t len);
const struct astra_alias *astra_env_alias(const struct astra_env *env, const char *name, size_t len);
const struct astra_func *astra_env_func(const struct astra_env *env, const char *name, size_t len);
const struct astra_const *astra_env_const(const struct astra_env *env, const char *name, size_t len);

struct astra_kernel {
	char *name;
	char *file;                 /* the file that defines it, as the compiler names it */
	unsigned line, col;         /* first token of the definition (template or __global__) */
	size_t start, end;          /* [start, end) bytes of the whole definition in file */
	size_t body_start;          /* offset of the body's '{' */
	char *text;                 /* the definition's text, [start, end) */
	int is_template;
	char **tmpl_params;         /* template parameter names, e.g. "T", "VEC" */
	char **tmpl_kinds;          /* their kinds as written: "typename", "int" */
	char **tmpl_defaults;       /* their default arguments as written, or NULL */
	size_t nr_tmpl;
	/*
	 * 1: `extern "C"` is written on the kernel itself (it is part of text);
	 * 2: the kernel sits inside an `extern "C" { ... }` block; 0: C++ linkage.
	 */
	int is_extern_c;
	char *launch_bounds;        /* the __launch_bounds__(...) arguments, or NULL */
	struct astra_param *params;
	size_t nr_params;
	struct astra_pragma pragma;
	size_t pragma_start, pragma_end; /* bytes of the pragma lines */
	int bad_pragma;             /* the pragma has mistakes (tu->diags): leave the kernel alone */
	/*
	 * Names the kernel refers to that are defined in the same file
	 * (functions, macros, types, globals), transitively, with their text:
	 * the key hashes them, the test program copies them.
	 */
	char **deps;
	char **dep_texts;
	size_t nr_deps;
	/*
	 * dep_norms[i]: dep_texts[i] as the key sees it (see norm below);
	 * dep_files[i]: the file that defines it (a header kernel may use a
	 * macro of the main file).
	 */
	char **dep_norms;
	char **dep_files;
	/* The definition's tokens (comments included, kind COMMENT). */
	struct astra_token *tokens;
	size_t nr_tokens;
	/*
	 * The definition as the key sees it: its tokens without comments,
	 * separated by one blank, with each preprocessor directive on a line
	 * of its own.  Reformatting and comments do not change it.
	 */
	char *norm;
	/* Indexes in tu->includes.items of the headers this kernel can see. */
	size_t *headers;
	size_t nr_headers;
	/* What the kernel's text depends on, resolved (above). */
	struct astra_env env;
};

void astra_kernel_release(struct astra_kernel *k);

/*
 * 1 when the host may name `name` (len bytes) in a launch expression: one
 * of the kernel's dependencies in its file (a macro, a type, a constant,
 * a function that is not device-only), such as the `ceil_div` or the
 * BLOCK_SIZE a pragma's launch uses; or any name the pragma's launch(...)
 * uses (a header's macro: the launch site evaluates it for the original).
 * A variant's own geometry may use them as well as the kernel's
 * parameters.
 */
int astra_kernel_host_name(const struct astra_kernel *k, const char *name, size_t len);

/*
 * A variant of a kernel: what an optimizer proposes, what the verifier
 * judges and what the cache stores.  text holds the kernel's definition
 * (same name and signature as the original) and any new __device__
 * helpers it needs, and nothing else.  A variant that needs another launch
 * geometry says so in a `#pragma astra launch(grid=..., block=...,
 * shmem=...)` line above the kernel in text; the expressions use only the
 * kernel's parameter names and constants, so that a generated host
 * launcher can evaluate them at every launch site.
 */
struct astra_variant {
	char *text;
	char *grid, *block, *shmem; /* parsed from text; NULL: the original launch */
	char *origin;               /* what made it: "rules: vectorize,fastmath", "llm: <model>" */
};

void astra_variant_release(struct astra_variant *v);

/* A launch site: name<<<config>>>(args) in the main file. */
struct astra_launch {
	char *kernel;               /* callee name as written (may include template args) */
	char *name;                 /* its last identifier, without scope or template args */
	size_t start, end;          /* the whole expression */
	unsigned line, col;
	char **config;              /* grid, block[, shmem[, stream]] as written */
	size_t nr_config;
	char **args;
	size_t nr_args;
	int in_macro;               /* written inside a #define: cannot be rewritten in place */
};

struct astra_tu {
	char *path;                 /* the main file as given on the command line */
	char *text;                 /* its contents */
	size_t len;
	struct astra_kernel *kernels;
	size_t nr_kernels, alloc_kernels;
	struct astra_launch *launches;
	size_t nr_launches, alloc_launches;
	struct astra_diags diags;   /* pragma mistakes and other user-facing problems */
	/*
	 * Where includes are looked up, set by the caller before extraction
	 * (not owned; may be NULL).  With it, includes below holds every
	 * header the main file can see but the toolkit's (the full scan, as
	 * the key needs); without it, only the project headers the command
	 * line's own directories reach (enough to find kernels).
	 */
	const struct astra_search_path *search;
	/* The headers the main file can see (with their contents). */
	struct astra_includes includes;
};

void astra_tu_release(struct astra_tu *tu);

/*
 * Is name[0, len) one of the few names a variant's launch expressions may
 * use besides parameters (dim3, min, max, sizeof, casts to integer types,
 * ...), which a generated host launcher can evaluate?
 */
int astra_launch_name(const char *name, size_t len);
const struct astra_kernel *astra_tu_kernel(const struct astra_tu *tu, const char *name);

#endif
