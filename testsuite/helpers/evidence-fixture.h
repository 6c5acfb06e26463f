/*
 * evidence-fixture.h - a realistic loop result without a GPU, for tests of
 * what the cache keeps and what the report shows.
 *
 * fixture_fill() makes the result the optimization loop would have after
 * a run on an H100-like device (four shapes from a tiny launch-bound one
 * to a 100 MB one, quartiles, a copy ceiling, tolerances, seeds,
 * sanitizer results, notes, a log) and passes it through the real
 * astra_loop_fill_entry() and astra_evidence_fill(), so that the entry's
 * evidence is exactly what warmup would store.  Only the numbers are made
 * up; the figures are consistent with each other (bandwidth = bytes /
 * time, speedup = baseline / variant).
 */
#ifndef ASTRA_EVIDENCE_FIXTURE_H
#define ASTRA_EVIDENCE_FIXTURE_H

#include "cache/manifest.h"

struct fixture {
	enum astra_verdict verdict;
	double speedup;             /* at the largest shape (FASTER) */
	const char *original;       /* the kernel's text, or NULL */
	const char *variant;        /* FASTER: the variant's text */
	const char *origin;         /* "rules: ..." or "llm: model" */
	const char *grid, *block;   /* the variant's own geometry, or NULL */
	const char *shape_prefix;   /* put before every shape's label, or NULL */
};

/* Fill e (key, cc, kernel set by the caller) as warmup would. */
void fixture_fill(struct astra_entry *e, const struct fixture *f);

#endif
