/*
 * llm-answer.h - from a model's answer to a candidate the verifier may see.
 *
 * A model's answer is hostile text.  This module finds the code in it (a
 * fenced block) and hands it to the gate every proposed variant passes,
 * astra_extract_candidate() (front/extract.h): the kernel with the
 * original's name, template header and parameter list, plus new __device__
 * helpers, and nothing else - no #include, no host code, no global state,
 * at most one `#pragma astra launch(...)` line.  Each rejection says why in
 * words that can be sent back to the model.  It is separate from the
 * optimizer so that the part that reads model output can be fuzzed alone
 * (testsuite/fuzz/fuzz-llm-response.c).
 */
#ifndef ASTRA_LLM_ANSWER_H
#define ASTRA_LLM_ANSWER_H

#include "lib/buf.h"
#include "front/kernel.h"

/*
 * Find the candidate's code in answer: the last fenced block (``` or ~~~)
 * that defines a __global__ function named kernel_name, or failing that the
 * last block with any __global__ function.  A leading <think>...</think>
 * section (reasoning models) is skipped.  Returns 0 with the block's text
 * (carriage returns dropped, one final newline) appended to code, or -1
 * with the reason appended to why (no block, a block that is never closed,
 * no kernel in any block).  Pure: no I/O.
 */
int astra_llm_answer_code(const char *answer, const char *kernel_name, struct astra_buf *code,
			  struct astra_buf *why);

/*
 * Check code as a variant of the original kernel k (astra_extract_candidate).
 * Returns 0 and fills v (zeroed by the callee: text = code, grid, block and
 * shmem from the launch line, origin NULL; release with
 * astra_variant_release), or -1 with the reasons appended to why (one per
 * line, no final newline) and v empty.
 */
int astra_llm_check_candidate(const struct astra_kernel *k, const char *code,
			      struct astra_variant *v, struct astra_buf *why);

#endif
