/*
 * llm-answer.h - from a model's answer to a candidate the verifier may see.
 *
 * A model's answer is hostile text.  This module finds the code in it (a
 * fenced block) and checks that the code is what a candidate may be: the
 * kernel with the original's name, template header and parameter list,
 * plus new __device__ helpers, and nothing else - no #include or other
 * preprocessor directives except #pragma, no host functions, no global
 * variables or type definitions, at most one `#pragma astra launch(...)`
 * line whose expressions use only the kernel's parameters.  Each rejection
 * says why in words that can be sent back to the model.
 *
 * The check is lexical: a small C++ tokenizer, bracket matching and the
 * shape of top-level declarations.  It is a stand-in for the libclang check
 * astra_extract_candidate() (branch `extract`), which should replace the
 * body of astra_llm_check_candidate() when it lands; the lexical check stays
 * useful as a first, cheap filter.  Pure (no I/O), so it is fuzzed
 * (testsuite/fuzz/fuzz-llm-response.c).
 */
#ifndef ASTRA_LLM_ANSWER_H
#define ASTRA_LLM_ANSWER_H

#include <stddef.h>

#include "astra-cc/buf.h"
#include "passes/kernel.h"

/*
 * Find the candidate's code in answer: the last fenced block (``` or ~~~)
 * that defines a __global__ function named kernel_name, or failing that the
 * last block with any __global__ function.  A leading <think>...</think>
 * section (reasoning models) is skipped.  Returns 0 with the block's text
 * in code (appended), or -1 with the reason in why (no block, a block that
 * is never closed, no kernel in any block).
 */
int astra_llm_answer_code(const char *answer, const char *kernel_name, struct astra_buf *code,
			  struct astra_buf *why);

/*
 * Check code against the original kernel k (name, params, template
 * parameters, pragma flags).  Returns 0 and fills v (text = code, grid,
 * block and shmem from a `#pragma astra launch` line; origin NULL; the
 * caller owns v's strings), or -1 with the reason in why and v untouched.
 */
int astra_llm_check_candidate(const struct astra_kernel *k, const char *code,
			      struct astra_variant *v, struct astra_buf *why);

/*
 * Stand-in for extraction until passes/extract.c is merged (tests use it
 * to build an astra_kernel from a .cu file): find the first __global__
 * function in text that has `#pragma astra` lines right above it and fill
 * k's name, file, line, start/end, text, body_start, params, template
 * parameters, pragma_start/pragma_end and pragma (through
 * astra_pragma_parse; diagnostics are dropped).
 * Returns 0, or -1 with why.  Release k with astra_llm_kernel_release().
 */
int astra_llm_scan_kernel(const char *file, const char *text, size_t len, struct astra_kernel *k,
			  struct astra_buf *why);
void astra_llm_kernel_release(struct astra_kernel *k);

/* Free v's strings and zero it (astra_variant_release lives with extract). */
void astra_llm_variant_clear(struct astra_variant *v);

#endif
