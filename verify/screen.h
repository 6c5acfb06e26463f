/*
 * screen.h - the verifier's static look at a candidate before it is compiled.
 *
 * A candidate is text from an optimizer (an LLM's answer is hostile input).
 * Before it goes into a test program the verifier makes sure it is what a
 * variant may be (DESIGN.md section 4): the kernel plus device helpers, and
 * nothing that runs on the host, starts other work, or keeps state from one
 * call to the next.  The compiler then checks the name and the signature
 * (verify/harness.c emits a static_assert per candidate), and the test
 * program checks the behaviour.
 *
 * This is deliberately a separate, small, conservative lexer-level check and
 * not libclang: it runs on every candidate of every round, needs no include
 * paths, and its verdicts are easy to explain.  front/extract.c's
 * astra_extract_candidate() (the libclang view) runs first where available;
 * this screen is the verifier's own line of defence and stays even then.
 *
 * What it rejects (the `check` names are stable; tests assert them):
 *   preprocessor  #include, #define, #undef, #line, #error in the text
 *   stream        <<<...>>>, or a host API that starts or orders work
 *                 (cudaStream*, cudaLaunch*, cudaGraph*, cudaEvent*,
 *                 cudaMemcpy*, cudaMemset*, cudaMalloc*, cudaDeviceSynchronize...)
 *   state         a mutable global or static variable, malloc/free: a
 *                 variant must not carry anything from one call to the next
 *   host-code     a function that is neither __global__ nor __device__
 *   kernel-missing  no __global__ function with the kernel's name
 *   syntax        unbalanced braces, an unterminated comment or string
 */
#ifndef ASTRA_SCREEN_H
#define ASTRA_SCREEN_H

#include <stddef.h>

struct astra_screened {
	/*
	 * The text to compile: same number of lines as the input (so compiler
	 * line numbers match the candidate's), with `#pragma astra` lines and
	 * `extern "C"` blanked out (the copy lives in a namespace of its own).
	 */
	char *text;
	/* From a `#pragma astra launch(grid=..., block=..., shmem=...)` line; NULL if absent. */
	char *grid, *block, *shmem;
	/* On rejection: a stable check name (static string) and a reason (malloc'd). */
	const char *check;
	char *reason;
	unsigned line;   /* 1-based line the reason refers to, 0 if none */
};

/*
 * Screen text as a candidate for __global__ kernel_name.  Returns 0 when the
 * candidate may be compiled (out->text set), -1 when it is rejected
 * (out->check and out->reason set).  out is always initialized; release it.
 */
int astra_screen_candidate(const char *text, const char *kernel_name, struct astra_screened *out);
void astra_screened_release(struct astra_screened *s);

/*
 * Parse the inside of a launch(...) clause, "grid=EXPR, block=EXPR[, shmem=EXPR]"
 * (top-level commas split; brackets balance).  Sets the malloc'd strings it
 * finds.  Returns 0, or -1 when the text is malformed.
 */
int astra_screen_parse_launch(const char *s, char **grid, char **block, char **shmem);

/*
 * The namespace scope at byte offset `at` of a C++ text (the original TU, for
 * a kernel that lives in a namespace): appends the names of the enclosing
 * namespaces, outermost first, to names (an anonymous namespace appears as
 * ""; `extern "C" { }` blocks are not listed) and returns the number of
 * braces open at `at`, or -1 when something other than a namespace or a
 * linkage block encloses it.
 */
struct astra_vec;
int astra_screen_scope(const char *text, size_t len, size_t at, struct astra_vec *names);

/*
 * How many preprocessor conditionals (#if, #ifdef, #ifndef) are open at
 * byte offset `at` of a C++ text: a kernel in a header with an include
 * guard, or inside `#ifdef __CUDACC__`, has its #endif after it.
 */
int astra_screen_open_conditionals(const char *text, size_t len, size_t at);

#endif
