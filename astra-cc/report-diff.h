/*
 * report-diff.h - the original kernel and its variant side by side.
 *
 * A line diff (longest common subsequence) laid out as rows of a
 * two-column view: a row holds a line of each side that is the same, a
 * line of each side that changed, or a line on one side only.  Pure (text
 * in, rows out) so that the unit test can check it; the report turns the
 * rows into HTML.
 */
#ifndef ASTRA_REPORT_DIFF_H
#define ASTRA_REPORT_DIFF_H

#include <stddef.h>

enum astra_diff_kind {
	ASTRA_DIFF_SAME,     /* the same line on both sides */
	ASTRA_DIFF_CHANGED,  /* a removed line beside an added one */
	ASTRA_DIFF_REMOVED,  /* left only */
	ASTRA_DIFF_ADDED,    /* right only */
};

struct astra_diff_row {
	enum astra_diff_kind kind;
	/* Line numbers (1-based) into each side, 0 where the side is empty. */
	size_t left, right;
};

struct astra_diff {
	char **a, **b;            /* the two texts' lines, without newlines */
	size_t na, nb;
	struct astra_diff_row *rows;
	size_t nr_rows;
	size_t removed, added;    /* lines on one side only, or changed */
};

/*
 * Compare texts a and b (NULL: empty).  Texts of more than 4000 lines are
 * not aligned: every line counts as changed (kernels are far shorter).
 */
void astra_diff_lines(const char *a, const char *b, struct astra_diff *d);
void astra_diff_release(struct astra_diff *d);

#endif
