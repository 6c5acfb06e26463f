/*
 * planner.h - which combinations of rules to try next, given what earlier
 * rounds measured.
 *
 * A candidate is a list of steps ("block-per-row,vectorize,fastmath"),
 * always applied in stage order (rule.h), so a set of steps has one
 * spelling.  The first round tries natural pipelines (every rule that
 * applies, in order, one per choice between rules that exclude each other,
 * with and without the accuracy-changing fastmath) and each applicable
 * rule alone.  Later rounds start from the fastest verified candidate and
 * try it with one more rule, with one rule swapped for its alternative,
 * with one sweep value changed, and without each of its rules; rules that
 * made a candidate fail (alone, or when added to one that passed) are
 * dropped.  Nothing tried before is proposed again (by steps or by
 * resulting text), and when nothing new is left the planner proposes
 * nothing, which ends the loop.
 *
 * Pure: no I/O, no GPU.  The loop's measurements come in as tries.
 */
#ifndef ASTRA_PLANNER_H
#define ASTRA_PLANNER_H

#include <stddef.h>

#include "lib/vec.h"
#include "front/kernel.h"

/*
 * Candidates per round of the optimization loop (agents/loop.c, unless
 * its caller says otherwise); --explain plans its first round with as many.
 */
#define ASTRA_ROUND_CANDIDATES 32

/* One earlier candidate of the rules, as the planner sees it. */
struct astra_rules_try {
	const char *steps;   /* "a,b=2,c" */
	int ok;              /* compiled and verified */
	double speedup;      /* over the original (geometric mean over shapes), 0 unknown */
	const char *text;    /* the candidate's text, or NULL */
};

/*
 * Append to out up to max step lists to try next (normalized spellings),
 * each one checked to build.  Returns how many were appended (0: nothing
 * new to try).  Why each was chosen is traced (ASTRA_CC_TRACE=loop).
 */
size_t astra_rules_plan(const struct astra_kernel *k, int cc, const struct astra_rules_try *tries, size_t nr_tries,
			size_t max, struct astra_vec *out);

/* The normalized spelling of a step list: sorted by stage, then name; duplicates removed. */
char *astra_rules_normalize(const char *steps);

#endif
