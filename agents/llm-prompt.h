/*
 * llm-prompt.h - what the planning and coding roles are told.
 *
 * The prompts are the LLM optimizer's program, so they live in one file of
 * their own, built from astra-cc's model of the kernel and of the loop's
 * progress and from nothing else (no clock, no paths outside the TU), so
 * that the same situation always produces the same request: a test
 * compares a recorded request with what astra-cc sends, and a change to a
 * prompt shows up there as a readable diff.
 *
 * The roles:
 *   plan    system: what the planner is for and what a candidate may do;
 *           user: the kernel and its pragma, same-file helpers, the target,
 *           the device flags, the baseline profile, the earlier attempts
 *           with their outcomes and the verifier's reasons, the best
 *           version so far.  Answer: a short numbered plan, no code.
 *   code    system: the rules a candidate must follow (one fenced block,
 *           same name and parameter list, device code only, the launch
 *           line); user: the kernel, the starting point, the plan.
 *   repair  the coding conversation continued: the model's answer, then
 *           why it was rejected (the check's reason or nvcc's errors).
 */
#ifndef ASTRA_LLM_PROMPT_H
#define ASTRA_LLM_PROMPT_H

#include "agents/optimizer.h"
#include "agents/provider.h"

/* A conversation; it owns the content strings. */
struct astra_llm_conv {
	struct astra_chat_msg *msgs;
	size_t nr, alloc;
};

/* Append a message; content is copied. */
void astra_llm_conv_add(struct astra_llm_conv *c, const char *role, const char *content);
void astra_llm_conv_release(struct astra_llm_conv *c);

/*
 * The planning conversation for this round.  notes are the LLM's own
 * earlier attempts that never reached the loop (answers without usable
 * code, kernels that did not compile after repairs); they are listed with
 * the loop's history.
 */
void astra_llm_prompt_plan(const struct astra_opt_context *ctx, const struct astra_attempt *notes,
			   size_t nr_notes, struct astra_llm_conv *out);

/* The coding conversation that turns plan (may be empty) into a kernel. */
void astra_llm_prompt_code(const struct astra_opt_context *ctx, const char *plan,
			   struct astra_llm_conv *out);

/*
 * Continue a coding conversation after a rejected answer: the answer as
 * the assistant's turn, then the reason.  compile_errors is non-zero when
 * reason is nvcc's output.
 */
void astra_llm_prompt_repair(struct astra_llm_conv *conv, const char *answer, const char *reason,
			     int compile_errors);

#endif
