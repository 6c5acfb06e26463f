/*
 * report-diff.c - a line diff for the side-by-side view (see report-diff.h).
 *
 * The classic dynamic program over the lines between the common prefix
 * and suffix: kernels and their variants are tens to hundreds of lines, so
 * its quadratic table is small, and its result (a longest common
 * subsequence) is the one people expect to see.
 */
#include "autoconfig.h"

#include <string.h>

#include "astra-cc/report-diff.h"
#include "lib/util.h"

#define MAX_LINES 4000

static char **split_lines(const char *s, size_t *n)
{
	char **v = NULL;
	size_t nr = 0, alloc = 0;
	if (s) {
		while (*s) {
			size_t len = strcspn(s, "\n");
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr] = xstrndup(s, len);
			/* A CRLF file: the CR is not part of what people read. */
			if (len && v[nr][len - 1] == '\r')
				v[nr][len - 1] = '\0';
			nr++;
			s += len;
			if (*s)
				s++;
		}
	}
	*n = nr;
	return v;
}

static void push(struct astra_diff *d, size_t *alloc, enum astra_diff_kind kind, size_t left, size_t right)
{
	ALLOC_GROW(d->rows, d->nr_rows + 1, *alloc);
	d->rows[d->nr_rows].kind = kind;
	d->rows[d->nr_rows].left = left;
	d->rows[d->nr_rows].right = right;
	d->nr_rows++;
	if (kind != ASTRA_DIFF_SAME) {
		d->removed += left ? 1 : 0;
		d->added += right ? 1 : 0;
	}
}

/* A run of removed lines [l0, l1) and added lines [r0, r1): pair them up. */
static void hunk(struct astra_diff *d, size_t *alloc, size_t l0, size_t l1, size_t r0, size_t r1)
{
	while (l0 < l1 || r0 < r1) {
		if (l0 < l1 && r0 < r1)
			push(d, alloc, ASTRA_DIFF_CHANGED, ++l0, ++r0);
		else if (l0 < l1)
			push(d, alloc, ASTRA_DIFF_REMOVED, ++l0, 0);
		else
			push(d, alloc, ASTRA_DIFF_ADDED, 0, ++r0);
	}
}

void astra_diff_lines(const char *a, const char *b, struct astra_diff *d)
{
	size_t pre = 0, suf = 0, n, m, i, j, alloc = 0;
	unsigned *t;

	memset(d, 0, sizeof(*d));
	d->a = split_lines(a, &d->na);
	d->b = split_lines(b, &d->nb);
	while (pre < d->na && pre < d->nb && !strcmp(d->a[pre], d->b[pre]))
		pre++;
	while (suf < d->na - pre && suf < d->nb - pre && !strcmp(d->a[d->na - 1 - suf], d->b[d->nb - 1 - suf]))
		suf++;
	for (i = 0; i < pre; i++)
		push(d, &alloc, ASTRA_DIFF_SAME, i + 1, i + 1);
	n = d->na - pre - suf;
	m = d->nb - pre - suf;
	if (n > MAX_LINES || m > MAX_LINES) {
		hunk(d, &alloc, pre, pre + n, pre, pre + m);
	} else if (n || m) {
		/* t[i][j]: the LCS length of a[pre+i..] and b[pre+j..]. */
		t = xcalloc((n + 1) * (m + 1), sizeof(*t));
#define T(i, j) t[(i) * (m + 1) + (j)]
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				T(i, j) = !strcmp(d->a[pre + i], d->b[pre + j]) ? T(i + 1, j + 1) + 1
					: T(i + 1, j) >= T(i, j + 1) ? T(i + 1, j) : T(i, j + 1);
		i = j = 0;
		while (i < n || j < m) {
			size_t i0 = i, j0 = j;
			/* Everything up to the next common line is one hunk. */
			while (i < n && j < m && strcmp(d->a[pre + i], d->b[pre + j])) {
				if (T(i + 1, j) >= T(i, j + 1))
					i++;
				else
					j++;
			}
			if (i == n || j == m) {
				i = n;
				j = m;
			}
			hunk(d, &alloc, pre + i0, pre + i, pre + j0, pre + j);
			if (i < n && j < m) {
				push(d, &alloc, ASTRA_DIFF_SAME, pre + i + 1, pre + j + 1);
				i++;
				j++;
			}
		}
#undef T
		free(t);
	}
	for (i = 0; i < suf; i++)
		push(d, &alloc, ASTRA_DIFF_SAME, d->na - suf + i + 1, d->nb - suf + i + 1);
}

void astra_diff_release(struct astra_diff *d)
{
	size_t i;
	for (i = 0; i < d->na; i++)
		free(d->a[i]);
	for (i = 0; i < d->nb; i++)
		free(d->b[i]);
	free(d->a);
	free(d->b);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}
