/*
 * opt-llm.h - the "llm" optimizer: planning and coding by a model.
 *
 * Each round, propose() asks the planning role what to try next (fed with
 * the kernel, its pragma, the profile and every earlier attempt with the
 * verifier's reasons), asks the coding role to write it, extracts and
 * checks the code (llm-answer.h), compiles it through the loop's
 * try_compile, and sends rejections and compile errors back to the coding
 * role up to `llm_repairs` times.  It returns at most one candidate per
 * round; the loop verifies and times it beside the rules' candidates.
 *
 * Failures of the model or the server never stop the loop: a round without
 * a usable answer returns 0 candidates, a failed request returns -1
 * (logged, counted in the statistics), a spent budget returns 0.  This is
 * separate from llm.c so the client can be reused by other roles and
 * tested on its own.
 */
#ifndef ASTRA_LLM_OPTIMIZER_H
#define ASTRA_LLM_OPTIMIZER_H

#include "agents/optimizer.h"

/*
 * A new "llm" optimizer, configured from the settings (see llm.h).  It is
 * always usable as an optimizer: when the settings are incomplete (no
 * model, no key for OpenAI), propose() logs why once and returns -1.
 * opt->free() frees it; opt->transcript() returns the current kernel's
 * transcript.
 */
struct astra_optimizer *astra_llm_optimizer_new(void);

#endif
