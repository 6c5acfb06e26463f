/*
 * hints.h - what a user could tell astra-cc that no run shows, read from
 * what the verifier saw.
 *
 * A tolerance is a fact about the application: the verifier holds every
 * output to its type's default unless the pragma says otherwise, and does
 * not loosen it on its own (a dropped term of a 32,000-term sum moves the
 * result as far as the same sum taken in another order).  But when
 * candidates were rejected only because an output differs from the
 * original's by a little more than that default (at most
 * ASTRA_HINT_NARROW times it, on the first trial that failed), the user
 * should hear it, with the line that would let them be tested again:
 * a block-wide sum of a long row differs from a sequential one by about
 * that much.  Outputs the pragma already gives a tolerance for are left
 * alone: the user has said.  The suggested tolerance multiplies the one
 * in effect by the smallest of 2, 5, 10, 20, 50 that is at least twice
 * the ratio seen, for the candidate that needs the widest tolerance
 * (so that it covers every instantiation's); the candidates are then verified in full again,
 * so a hint never lets a wrong one through.
 * Pure: no I/O (testsuite/unit/test-hints.c).
 */
#ifndef ASTRA_HINTS_H
#define ASTRA_HINTS_H

#include <stddef.h>

#include "lib/vec.h"
#include "front/kernel.h"
#include "verify/verify.h"

#define ASTRA_HINT_NARROW 10.0

/* Per output: the candidates rejected only for narrowly missing its default tolerance. */
struct astra_hint_output {
	char *name;
	size_t candidates;
	/*
	 * Of the one that needs the widest tolerance (ratio times the
	 * tolerance; an output's instantiations may differ in it): its error
	 * over its tolerance, and that tolerance (atol relative to the rms).
	 */
	double ratio;
	double rtol, atol;
};

struct astra_hints {
	struct astra_hint_output *out;
	size_t nr, alloc;
};

#define ASTRA_HINTS_INIT { NULL, 0, 0 }

/* Take in one verification of kernel k's candidates. */
void astra_hints_add(struct astra_hints *h, const struct astra_kernel *k, const struct astra_verify_result *vr);

/*
 * One line per output with a hint, pushed onto lines; each names the
 * pragma clause as "`#pragma astra tolerance(NAME: rtol=R, atol=A)`",
 * which is also pushed alone onto clauses (unless NULL).  Returns how
 * many.
 */
size_t astra_hints_text(const struct astra_hints *h, struct astra_vec *lines, struct astra_vec *clauses);

void astra_hints_release(struct astra_hints *h);

#endif
