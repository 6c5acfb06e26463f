/*
 * select.c - the variants a kernel keeps and where each runs (see
 * select.h).
 *
 * A set cover, solved exactly: the sets are few (the candidates that are
 * best somewhere, usually a handful) and so are the points (the pragma's
 * shapes), so trying every combination of k candidates for k = 0, 1, ...
 * is cheap and gives the smallest set, with the quality order among the
 * sets of that size.  When many candidates are best somewhere, a candidate
 * whose points are a subset of another's is dropped first (it can only
 * matter for the quality order), and a search that would still be too
 * long falls back to the greedy cover.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "agents/select.h"
#include "lib/util.h"

/* Combinations tried per size before the greedy cover takes over. */
#define MAX_COMBINATIONS 200000.0
/* Above this many candidates, dominated ones are dropped before the search. */
#define PRUNE_ABOVE 16

struct sel {
	const struct astra_select_input *in;
	size_t nc, nv, np;         /* cases, versions, points */
	size_t *point;             /* per case */
	unsigned char *usable;     /* per version: timed at every case */
	unsigned char *w;          /* [p * nv + v]: v may serve point p */
	double *g;                 /* [p * nv + v]: sum of log times of v over p's cases */
	size_t *cand;              /* candidates that may serve some point */
	size_t ncand;
};

static const struct astra_timing *tm(const struct sel *s, size_t v, size_t c)
{
	return &s->in->timing[v * s->nc + c];
}

/* Is version v beaten beyond the noise at case c by another usable version? */
static int beaten(const struct sel *s, size_t v, size_t c)
{
	size_t u;
	for (u = 0; u < s->nv; u++)
		if (u != v && s->usable[u] && astra_profile_compare(tm(s, v, c), tm(s, u, c), NULL) > 0)
			return 1;
	return 0;
}

/* Is v beaten beyond the noise at case c by another version of the set in[]? */
static int beaten_among(const struct sel *s, size_t v, size_t c, const unsigned char *in)
{
	size_t u;
	for (u = 0; u < s->nv; u++)
		if (u != v && in[u] && astra_profile_compare(tm(s, v, c), tm(s, u, c), NULL) > 0)
			return 1;
	return 0;
}

static int same_values(const struct astra_select_input *in, size_t a, size_t b)
{
	size_t p;
	for (p = 0; p < in->nr_params; p++)
		if (in->values[a * in->nr_params + p] != in->values[b * in->nr_params + p])
			return 0;
	return 1;
}

/* Group the cases into points; fill w[] and g[]. */
static void build_points(struct sel *s)
{
	size_t c, d, p, v, big;
	unsigned char *keep = xcalloc(s->nv, 1);
	s->point = xcalloc(s->nc, sizeof(size_t));
	for (c = 0; c < s->nc; c++) {
		s->point[c] = s->np;
		for (d = 0; d < c; d++)
			if (same_values(s->in, c, d)) {
				s->point[c] = s->point[d];
				break;
			}
		if (s->point[c] == s->np)
			s->np++;
	}
	s->w = xcalloc(s->np * s->nv, 1);
	s->g = xcalloc(s->np * s->nv, sizeof(double));
	for (p = 0; p < s->np; p++) {
		int any = 0;
		for (v = 0; v < s->nv; v++) {
			int best = s->usable[v];
			for (c = 0; c < s->nc; c++) {
				if (s->point[c] != p)
					continue;
				if (s->usable[v])
					s->g[p * s->nv + v] += log(tm(s, v, c)->median);
				if (best && beaten(s, v, c))
					best = 0;
			}
			s->w[p * s->nv + v] = (unsigned char)best;
			any |= best;
		}
		if (any)
			continue;
		/*
		 * No version is best at every case of the point (its
		 * instantiations disagree): of the versions not slower than
		 * the original at any of its cases, those that no other of
		 * them beats at the point's largest case, which decides as
		 * it does for a single variant (doc/verify.md).
		 */
		big = (size_t)-1;
		for (c = 0; c < s->nc; c++) /* the first of equal bytes, as astra_profile_largest */
			if (s->point[c] == p &&
			    (big == (size_t)-1 || (s->in->bytes && s->in->bytes[c] > s->in->bytes[big])))
				big = c;
		for (v = 0; v < s->nv; v++) {
			int safe = s->usable[v];
			for (c = 0; c < s->nc && safe; c++)
				if (s->point[c] == p && astra_profile_compare(tm(s, 0, c), tm(s, v, c), NULL) < 0)
					safe = 0;
			s->w[p * s->nv + v] = (unsigned char)safe;
		}
		for (v = 0; v < s->nv; v++)
			keep[v] = s->w[p * s->nv + v] && !beaten_among(s, v, big, &s->w[p * s->nv]);
		for (v = 0; v < s->nv; v++)
			s->w[p * s->nv + v] = keep[v];
	}
	free(keep);
}

/* Does point p's coverage of u contain v's? */
static int covers_all_of(const struct sel *s, size_t u, size_t v)
{
	size_t p;
	for (p = 0; p < s->np; p++)
		if (s->w[p * s->nv + v] && !s->w[p * s->nv + u])
			return 0;
	return 1;
}

static void collect_candidates(struct sel *s)
{
	size_t v, p, i, j;
	s->cand = xcalloc(s->nv, sizeof(size_t));
	for (v = 1; v < s->nv; v++)
		for (p = 0; p < s->np; p++)
			if (s->w[p * s->nv + v]) {
				s->cand[s->ncand++] = v;
				break;
			}
	if (s->ncand <= PRUNE_ABOVE)
		return;
	/* Drop a candidate whose points another one covers (the first of equals stays). */
	for (i = 0; i < s->ncand;) {
		int dominated = 0;
		for (j = 0; j < s->ncand && !dominated; j++)
			if (j != i && covers_all_of(s, s->cand[j], s->cand[i]) &&
			    (!covers_all_of(s, s->cand[i], s->cand[j]) || j < i))
				dominated = 1;
		if (dominated) {
			memmove(&s->cand[i], &s->cand[i + 1], (s->ncand - i - 1) * sizeof(size_t));
			s->ncand--;
		} else {
			i++;
		}
	}
}

/*
 * The assignment for the versions in set[0..n) (plus the original when
 * orig): at each point the allowed version with the lowest time.  Returns
 * 0 when some point has none, else 1 with choice[] (per point) and the
 * quality filled.
 */
static int assign(const struct sel *s, const size_t *set, size_t n, int orig, size_t *choice, double *sp,
		  double *sp_large, size_t largest)
{
	size_t p, i, c;
	double sum = 0;
	for (p = 0; p < s->np; p++) {
		size_t best = (size_t)-1;
		if (orig && s->w[p * s->nv])
			best = 0;
		for (i = 0; i < n; i++) {
			size_t v = set[i];
			if (!s->w[p * s->nv + v])
				continue;
			if (best == (size_t)-1 || s->g[p * s->nv + v] < s->g[p * s->nv + best])
				best = v;
		}
		if (best == (size_t)-1)
			return 0;
		choice[p] = best;
	}
	for (c = 0; c < s->nc; c++)
		sum += log(tm(s, 0, c)->median) - log(tm(s, choice[s->point[c]], c)->median);
	*sp = exp(sum / (double)s->nc);
	*sp_large = tm(s, 0, largest)->median / tm(s, choice[s->point[largest]], largest)->median;
	return 1;
}

struct best {
	int found;
	size_t *set;       /* version numbers */
	size_t n;
	int orig;
	size_t *choice;    /* per point */
	double sp, sp_large;
};

static void consider(const struct sel *s, struct best *b, const size_t *set, size_t n, int orig, size_t largest,
		     size_t *scratch)
{
	double sp, spl;
	if (!assign(s, set, n, orig, scratch, &sp, &spl, largest))
		return;
	if (b->found) {
		/* Better only by a higher geometric mean, or an equal one and more at the largest case. */
		if (sp < b->sp * (1 - 1e-12))
			return;
		if (sp <= b->sp * (1 + 1e-12) && spl <= b->sp_large * (1 + 1e-12))
			return;
	}
	b->found = 1;
	memcpy(b->set, set, n * sizeof(size_t));
	b->n = n;
	b->orig = orig;
	memcpy(b->choice, scratch, s->np * sizeof(size_t));
	b->sp = sp;
	b->sp_large = spl;
}

static double binomial(size_t n, size_t k)
{
	double r = 1;
	size_t i;
	for (i = 0; i < k; i++)
		r = r * (double)(n - i) / (double)(i + 1);
	return r;
}

/* Every combination of k of the candidates, with orig as given. */
static void search_size(const struct sel *s, struct best *b, size_t k, int orig, size_t largest, size_t *idx,
			size_t *set, size_t *scratch)
{
	size_t i;
	if (k > s->ncand)
		return;
	for (i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		for (i = 0; i < k; i++)
			set[i] = s->cand[idx[i]];
		consider(s, b, set, k, orig, largest, scratch);
		/* Next combination in lexicographic order. */
		i = k;
		while (i > 0 && idx[i - 1] == s->ncand - k + i - 1)
			i--;
		if (i == 0)
			return;
		idx[i - 1]++;
		for (; i < k; i++)
			idx[i] = idx[i - 1] + 1;
	}
}

/* The greedy cover: repeatedly the candidate that serves most points not yet served. */
static void greedy(const struct sel *s, struct best *b, size_t largest, size_t *set, size_t *scratch)
{
	unsigned char *done = xcalloc(s->np ? s->np : 1, 1);
	size_t n = 0, p, i, left = 0;
	for (p = 0; p < s->np; p++)
		if (s->w[p * s->nv])
			done[p] = 1;
		else
			left++;
	while (left) {
		size_t best = 0, gain = 0;
		for (i = 0; i < s->ncand; i++) {
			size_t c = 0;
			for (p = 0; p < s->np; p++)
				c += !done[p] && s->w[p * s->nv + s->cand[i]];
			if (c > gain) {
				gain = c;
				best = s->cand[i];
			}
		}
		if (!gain)
			break;
		set[n++] = best;
		for (p = 0; p < s->np; p++)
			if (!done[p] && s->w[p * s->nv + best]) {
				done[p] = 1;
				left--;
			}
	}
	free(done);
	consider(s, b, set, n, 0, largest, scratch);
	if (!b->found)
		consider(s, b, set, n, 1, largest, scratch);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int astra_select(const struct astra_select_input *in, struct astra_select_result *out)
{
	struct sel s;
	struct best b;
	size_t v, c, k, largest = 0, *idx, *set, *scratch;

	memset(out, 0, sizeof(*out));
	if (!in->nr_cases || !in->nr_versions)
		return -1;
	memset(&s, 0, sizeof(s));
	s.in = in;
	s.nc = in->nr_cases;
	s.nv = in->nr_versions;
	s.usable = xcalloc(s.nv, 1);
	for (v = 0; v < s.nv; v++) {
		s.usable[v] = 1;
		for (c = 0; c < s.nc; c++)
			if (!(tm(&s, v, c)->median > 0) || !isfinite(tm(&s, v, c)->median))
				s.usable[v] = 0;
	}
	if (!s.usable[0]) {
		free(s.usable);
		return -1;
	}
	largest = astra_profile_largest(in->bytes, s.nc);
	build_points(&s);
	collect_candidates(&s);

	memset(&b, 0, sizeof(b));
	b.set = xcalloc(s.nv, sizeof(size_t));
	b.choice = xcalloc(s.np, sizeof(size_t));
	idx = xcalloc(s.nv, sizeof(size_t));
	set = xcalloc(s.nv, sizeof(size_t));
	scratch = xcalloc(s.np, sizeof(size_t));
	for (k = 0; k <= s.ncand && !b.found; k++) {
		if (binomial(s.ncand, k) > MAX_COMBINATIONS) {
			greedy(&s, &b, largest, set, scratch);
			break;
		}
		/* k candidates alone (a set of size k), then with the original (k + 1). */
		if (k)
			search_size(&s, &b, k, 0, largest, idx, set, scratch);
		if (!b.found)
			search_size(&s, &b, k, 1, largest, idx, set, scratch);
	}

	out->choice = xcalloc(s.nc, sizeof(size_t));
	out->kept = xcalloc(s.nv, sizeof(size_t));
	out->largest = largest;
	out->nr_points = s.np;
	if (b.found) {
		size_t first = b.choice[s.point[0]];
		for (c = 0; c < s.nc; c++) {
			out->choice[c] = b.choice[s.point[c]];
			if (out->choice[c] == 0)
				out->uses_original = 1;
			if (out->choice[c] != first)
				out->dispatch = 1;
		}
		/* Keep only what runs somewhere. */
		for (k = 0; k < b.n; k++)
			for (c = 0; c < s.nc; c++)
				if (out->choice[c] == b.set[k]) {
					out->kept[out->nr_kept++] = b.set[k];
					break;
				}
		qsort(out->kept, out->nr_kept, sizeof(size_t), cmp_size);
		out->speedup = b.sp;
		out->speedup_largest = b.sp_large;
	}
	free(idx);
	free(set);
	free(scratch);
	free(b.set);
	free(b.choice);
	free(s.usable);
	free(s.point);
	free(s.w);
	free(s.g);
	free(s.cand);
	return 0;
}

void astra_select_result_release(struct astra_select_result *r)
{
	free(r->choice);
	free(r->kept);
	memset(r, 0, sizeof(*r));
}
