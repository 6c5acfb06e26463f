/*
 * dispatch.c - the host-side choice of a shape-dispatched kernel (see
 * dispatch.h).
 *
 * The rule lives here twice, on purpose in the same shape: as C
 * (astra_dispatch_choose, which --show-entry and the tests use) and as the
 * C++ text the launcher compiles (astra_dispatch_emit).  Both read the
 * same tables in the same order with the same comparisons, and the test
 * suite compiles the emitted text and checks it against the C on a grid
 * of launches (testsuite/cases/subst/0012-dispatch-choice).
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "passes/dispatch.h"

/* The coordinate of a value: its logarithm, values below 1 (and NaN) counting as 1. */
static double coord(double x)
{
	return log(x > 1.0 ? x : 1.0);
}

void astra_dispatch_release(struct astra_dispatch *d)
{
	size_t i;
	for (i = 0; i < d->nr_params; i++)
		free(d->params[i]);
	free(d->params);
	free(d->values);
	free(d->choice);
	memset(d, 0, sizeof(*d));
}

static int cmp_points(const double *a, const double *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

int astra_dispatch_from_entry(struct astra_dispatch *d, const struct astra_entry *e, const char **why)
{
	size_t *used, nu = 0, i, j, k;

	memset(d, 0, sizeof(*d));
	if (!astra_entry_is_dispatch(e))
		return *why = "not a variant set", -1;
	if (astra_entry_check_dispatch(e, why) < 0)
		return -1;
	used = xcalloc(e->nr_params + 1, sizeof(size_t));
	for (j = 0; j < e->nr_params; j++)
		for (i = 1; i < e->nr_points; i++)
			if (e->points[i].values[j] != e->points[0].values[j]) {
				used[nu++] = j;
				break;
			}
	d->nr_params = nu;
	d->params = xcalloc(nu + 1, sizeof(char *));
	for (j = 0; j < nu; j++)
		d->params[j] = xstrdup(e->params[used[j]]);
	d->nr_versions = (int)e->nr_variants + 1;
	d->values = xcalloc((e->nr_points + 1) * (nu + 1), sizeof(double));
	d->choice = xcalloc(e->nr_points + 1, sizeof(int));
	for (i = 0; i < e->nr_points; i++) {
		double *v = xcalloc(nu + 1, sizeof(double));
		size_t at;
		for (j = 0; j < nu; j++)
			v[j] = e->points[i].values[used[j]];
		/* Insert in ascending order; an equal point is the same shape (another instantiation). */
		for (at = 0; at < d->nr_points && cmp_points(&d->values[at * nu], v, nu) < 0; at++)
			;
		if (at < d->nr_points && !cmp_points(&d->values[at * nu], v, nu)) {
			free(v);
			continue;
		}
		for (k = d->nr_points; k > at; k--) {
			memcpy(&d->values[k * nu], &d->values[(k - 1) * nu], nu * sizeof(double));
			d->choice[k] = d->choice[k - 1];
		}
		memcpy(&d->values[at * nu], v, nu * sizeof(double));
		d->choice[at] = e->points[i].choice;
		d->nr_points++;
		free(v);
	}
	free(used);
	return 0;
}

int astra_dispatch_equal(const struct astra_dispatch *a, const struct astra_dispatch *b)
{
	size_t i;
	if (a->nr_params != b->nr_params || a->nr_points != b->nr_points || a->nr_versions != b->nr_versions)
		return 0;
	for (i = 0; i < a->nr_params; i++)
		if (strcmp(a->params[i], b->params[i]))
			return 0;
	for (i = 0; i < a->nr_points; i++)
		if (a->choice[i] != b->choice[i] || cmp_points(&a->values[i * a->nr_params],
							       &b->values[i * b->nr_params], a->nr_params))
			return 0;
	return 1;
}

/* ------------------------------------------------------ one parameter */

/*
 * With one parameter: the regions along it.  Measured values that count
 * as the same (below 1) form one group, which runs the choice of its last
 * (largest) point, as a tie goes to the larger shape.  Between groups
 * whose choices differ, the threshold is the geometric mean of their
 * values: a launch below it runs the lower group's choice.  Fills
 * thr[0..n-1] and below[0..n-1] (n returned) and *last.
 */
static size_t regions(const struct astra_dispatch *d, double *thr, int *below, int *last)
{
	size_t i = 0, n = 0;
	while (i < d->nr_points) {
		size_t g = i;
		double a = d->values[i] > 1.0 ? d->values[i] : 1.0, b;
		while (g + 1 < d->nr_points && (d->values[g + 1] > 1.0 ? d->values[g + 1] : 1.0) == a)
			g++;
		*last = d->choice[g];
		if (g + 1 >= d->nr_points)
			break;
		b = d->values[g + 1] > 1.0 ? d->values[g + 1] : 1.0;
		/* Where the next group's choice differs, a threshold. */
		{
			size_t h = g + 1;
			while (h + 1 < d->nr_points && (d->values[h + 1] > 1.0 ? d->values[h + 1] : 1.0) == b)
				h++;
			if (d->choice[h] != d->choice[g]) {
				thr[n] = sqrt(a * b);
				below[n++] = d->choice[g];
			}
		}
		i = g + 1;
	}
	return n;
}

/* ------------------------------------------------------------ choice */

int astra_dispatch_choose(const struct astra_dispatch *d, const double *values)
{
	size_t i, j;
	if (!d->nr_points)
		return 0;
	if (d->nr_params == 0)
		return d->choice[d->nr_points - 1];
	if (d->nr_params == 1) {
		double *thr = xcalloc(d->nr_points, sizeof(double));
		int *below = xcalloc(d->nr_points, sizeof(int)), last = 0, r = -1;
		size_t n = regions(d, thr, below, &last);
		for (i = 0; i < n && r < 0; i++)
			if (values[0] < thr[i])
				r = below[i];
		free(thr);
		free(below);
		return r < 0 ? last : r;
	}
	{
		size_t best = 0;
		double bd = 1e300;
		for (i = 0; i < d->nr_points; i++) {
			double dist = 0;
			for (j = 0; j < d->nr_params; j++) {
				double t = coord(values[j]) - coord(d->values[i * d->nr_params + j]);
				dist += t * t;
			}
			if (dist <= bd) {
				bd = dist;
				best = i;
			}
		}
		return d->choice[best];
	}
}

/* ------------------------------------------------------------ emission */

/* A double as C++ text that reads back exactly. */
static void add_double(struct astra_buf *out, double v)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.17g", v);
	astra_buf_adds(out, tmp);
	if (!strpbrk(tmp, ".eEni"))
		astra_buf_adds(out, ".0");
}

int astra_dispatch_emit(const struct astra_dispatch *d, const char *name, struct astra_buf *out)
{
	size_t i, j;

	astra_buf_addf(out, "/* astra-cc: the version of each launch (0: the original), from the nearest "
		       "measured shape in log scale of ");
	for (j = 0; j < d->nr_params; j++)
		astra_buf_addf(out, "%s%s", j ? ", " : "", d->params[j]);
	if (!d->nr_params)
		astra_buf_adds(out, "nothing");
	astra_buf_adds(out, " (passes/dispatch.h) */\n");
	astra_buf_addf(out, "static inline int %s(", name);
	for (j = 0; j < d->nr_params; j++)
		astra_buf_addf(out, "%sdouble __astra_x%zu", j ? ", " : "", j);
	if (!d->nr_params)
		astra_buf_adds(out, "void");
	astra_buf_adds(out, ")\n{\n");

	if (d->nr_params == 0) {
		astra_buf_addf(out, "\treturn %d;\n}\n", d->nr_points ? d->choice[d->nr_points - 1] : 0);
		return 0;
	}
	if (d->nr_params == 1) {
		double *thr = xcalloc(d->nr_points + 1, sizeof(double));
		int *below = xcalloc(d->nr_points + 1, sizeof(int)), last = 0;
		size_t n = regions(d, thr, below, &last);
		astra_buf_adds(out, "\t/* measured:");
		for (i = 0; i < d->nr_points; i++) {
			astra_buf_addch(out, ' ');
			add_double(out, d->values[i]);
			astra_buf_addf(out, "->%d", d->choice[i]);
		}
		astra_buf_adds(out, " */\n");
		for (i = 0; i < n; i++) {
			astra_buf_adds(out, "\tif (__astra_x0 < ");
			add_double(out, thr[i]);
			astra_buf_addf(out, ")\n\t\treturn %d;\n", below[i]);
		}
		astra_buf_addf(out, "\treturn %d;\n}\n", last);
		free(thr);
		free(below);
		return 0;
	}

	/* Several parameters: the nearest measured shape in log space. */
	astra_buf_addf(out, "\tstatic const double __astra_pt[%zu][%zu] = {\n", d->nr_points, d->nr_params);
	for (i = 0; i < d->nr_points; i++) {
		astra_buf_adds(out, "\t\t{ ");
		for (j = 0; j < d->nr_params; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			add_double(out, coord(d->values[i * d->nr_params + j]));
		}
		astra_buf_adds(out, " }, /*");
		for (j = 0; j < d->nr_params; j++)
			astra_buf_addf(out, " %s=%.17g", d->params[j], d->values[i * d->nr_params + j]);
		astra_buf_adds(out, " */\n");
	}
	astra_buf_addf(out, "\t};\n\tstatic const int __astra_w[%zu] = { ", d->nr_points);
	for (i = 0; i < d->nr_points; i++)
		astra_buf_addf(out, "%s%d", i ? ", " : "", d->choice[i]);
	astra_buf_adds(out, " };\n");
	astra_buf_addf(out, "\tconst double __astra_l[%zu] = { ", d->nr_params);
	for (j = 0; j < d->nr_params; j++)
		astra_buf_addf(out, "%s::log(__astra_x%zu > 1.0 ? __astra_x%zu : 1.0)", j ? ", " : "", j, j);
	astra_buf_adds(out, " };\n"
		       "\tdouble __astra_bd = 1e300;\n"
		       "\tint __astra_b = 0;\n");
	astra_buf_addf(out, "\tfor (int __astra_i = 0; __astra_i < %zu; __astra_i++) {\n"
		       "\t\tdouble __astra_d = 0;\n"
		       "\t\tfor (int __astra_j = 0; __astra_j < %zu; __astra_j++) {\n"
		       "\t\t\tdouble __astra_t = __astra_l[__astra_j] - __astra_pt[__astra_i][__astra_j];\n"
		       "\t\t\t__astra_d += __astra_t * __astra_t;\n"
		       "\t\t}\n"
		       "\t\tif (__astra_d <= __astra_bd) {\n"
		       "\t\t\t__astra_bd = __astra_d;\n"
		       "\t\t\t__astra_b = __astra_i;\n"
		       "\t\t}\n"
		       "\t}\n"
		       "\treturn __astra_w[__astra_b];\n}\n",
		       d->nr_points, d->nr_params);
	return 0;
}

/* ------------------------------------------------------------ for people */

static void add_value(struct astra_buf *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		astra_buf_addf(out, "%.0f", v);
	else
		astra_buf_addf(out, "%.4g", v);
}

void astra_dispatch_describe(const struct astra_dispatch *d, const char *const *names, struct astra_buf *out)
{
	size_t i, j;
	if (d->nr_params == 1) {
		double *thr = xcalloc(d->nr_points + 1, sizeof(double));
		int *below = xcalloc(d->nr_points + 1, sizeof(int)), last = 0;
		size_t n = regions(d, thr, below, &last);
		for (i = 0; i <= n; i++) {
			astra_buf_adds(out, "  ");
			if (i)
				astra_buf_addf(out, "%.6g <= ", thr[i - 1]);
			astra_buf_adds(out, d->params[0]);
			if (i < n)
				astra_buf_addf(out, " < %.6g", thr[i]);
			astra_buf_addf(out, ": %s\n", names[i < n ? below[i] : last]);
		}
		free(thr);
		free(below);
		return;
	}
	astra_buf_adds(out, "  the nearest measured shape in log scale of ");
	for (j = 0; j < d->nr_params; j++)
		astra_buf_addf(out, "%s%s", j ? ", " : "", d->params[j]);
	astra_buf_adds(out, ":\n");
	for (i = 0; i < d->nr_points; i++) {
		astra_buf_adds(out, "   ");
		for (j = 0; j < d->nr_params; j++) {
			astra_buf_addf(out, " %s=", d->params[j]);
			add_value(out, d->values[i * d->nr_params + j]);
		}
		astra_buf_addf(out, ": %s\n", names[d->choice[i]]);
	}
}
