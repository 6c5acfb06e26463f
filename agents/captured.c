/*
 * captured.c - test shapes from captured launches (see captured.h).
 *
 * Apart from warmup and the policy because both need it, and so does
 * --list-kernels, which shows what was inferred.  The rest of astra-cc sees
 * only a pragma: this is the one place that turns launches into one.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "front/types.h"
#include "cache/capture.h"
#include "cache/store.h"
#include "agents/captured.h"

void astra_captured_info_init(struct astra_captured_info *info)
{
	memset(info, 0, sizeof(*info));
	astra_vec_init(&info->shapes);
	astra_vec_init(&info->notes);
	astra_vec_init(&info->advice);
}

void astra_captured_info_release(struct astra_captured_info *info)
{
	astra_vec_clear(&info->shapes);
	astra_vec_clear(&info->notes);
	astra_vec_clear(&info->advice);
	free(info->missing);
	astra_captured_info_init(info);
}

void astra_captured_kernel_release(struct astra_kernel *copy)
{
	astra_pragma_release(&copy->pragma);
	memset(copy, 0, sizeof(*copy));
}

/* ------------------------------------------------------------ the pragma */

/* A deep copy of a pragma: its canonical text read back. */
static void copy_pragma(const struct astra_pragma *src, struct astra_pragma *dst)
{
	char *text = astra_pragma_canonical(src);
	struct astra_diags d;
	memset(&d, 0, sizeof(d));
	astra_pragma_init(dst);
	if (*text)
		astra_pragma_parse(dst, text, "<pragma>", src->line, 1, &d);
	dst->line = src->line;
	astra_diags_release(&d);
	free(text);
}

/* Add name=value (value is taken) to a set. */
static void set_add(struct astra_assign_set *s, const char *name, char *value)
{
	ALLOC_GROW(s->items, s->nr + 1, s->alloc);
	memset(&s->items[s->nr], 0, sizeof(s->items[0]));
	s->items[s->nr].name = xstrdup(name);
	s->items[s->nr].value = value;
	s->nr++;
}

static struct astra_assign_set *new_set(struct astra_assign_set **v, size_t *nr, size_t *alloc)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	memset(&(*v)[*nr], 0, sizeof((*v)[0]));
	return &(*v)[(*nr)++];
}

static void add_buffer(struct astra_pragma *p, const char *name, char *count)
{
	ALLOC_GROW(p->buffers, p->nr_buffers + 1, p->alloc_buffers);
	memset(&p->buffers[p->nr_buffers], 0, sizeof(p->buffers[0]));
	p->buffers[p->nr_buffers].name = xstrdup(name);
	p->buffers[p->nr_buffers].count = count;
	p->nr_buffers++;
}

static void add_output(struct astra_pragma *p, const char *name)
{
	ALLOC_GROW(p->outputs, p->nr_outputs + 1, p->alloc_outputs);
	ALLOC_GROW(p->output_pos, p->nr_outputs + 1, p->alloc_output_pos);
	p->outputs[p->nr_outputs] = xstrdup(name);
	memset(&p->output_pos[p->nr_outputs], 0, sizeof(p->output_pos[0]));
	p->nr_outputs++;
}

/* ------------------------------------------------------------ values */

static const struct astra_capture_value *scalar_of(const struct astra_capture_shape *s, int index)
{
	size_t i;
	for (i = 0; i < s->nr_scalars; i++)
		if (s->scalars[i].index == index)
			return &s->scalars[i];
	return NULL;
}

static const struct astra_capture_buffer *buffer_of(const struct astra_capture_shape *s, int index)
{
	size_t i;
	for (i = 0; i < s->nr_bufs; i++)
		if (s->bufs[i].index == index)
			return &s->bufs[i];
	return NULL;
}

/* An integer scalar's value; 0 when it is not one. */
static int int_value(const struct astra_capture_value *v, long long *out)
{
	char *end;
	if (!v || !v->text || !v->kind || (strcmp(v->kind, "int") && strcmp(v->kind, "uint")))
		return 0;
	errno = 0;
	*out = strtoll(v->text, &end, 10);
	return !errno && !*end && end != v->text;
}

/* The shortest decimal that reads back to d as a float (f32) or double. */
static char *shortest(double d, int f32)
{
	char tmp[64];
	int prec;
	if (isnan(d))
		return xstrdup(f32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")");
	if (isinf(d))
		return xstrdup(d < 0 ? (f32 ? "(-__builtin_inff())" : "(-__builtin_inf())")
				     : (f32 ? "__builtin_inff()" : "__builtin_inf()"));
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (f32 ? (float)strtod(tmp, NULL) == (float)d : strtod(tmp, NULL) == d)
			break;
	}
	return xasprintf("%s%s%s", tmp, strpbrk(tmp, ".en") ? "" : ".0", f32 ? "f" : "");
}

/*
 * A C++ expression with the captured value of a scalar parameter, of the
 * parameter's type (the test program casts it to that type).
 */
static char *literal(const struct astra_capture_value *v, const struct astra_param *p)
{
	if (v->text && v->kind) {
		if (!strcmp(v->kind, "f32") || !strcmp(v->kind, "f64")) {
			char *end;
			double d = strtod(v->text, &end);
			if (!*end && end != v->text)
				return shortest(d, !strcmp(v->kind, "f32"));
		} else if (!strcmp(v->kind, "uint")) {
			return xasprintf("%sull", v->text);
		} else if (!strcmp(v->kind, "int")) {
			long long n;
			if (int_value(v, &n))
				return n > INT_MAX || n < INT_MIN ? xasprintf("%sll", v->text) : xstrdup(v->text);
		} else if (!strcmp(v->kind, "bool")) {
			return xstrdup(v->text);
		}
	}
	if (v->hex && *v->hex && p && p->type) {
		/* Any other type: its bytes, as the launch passed them. */
		struct astra_buf b = ASTRA_BUF_INIT;
		size_t i, n = strlen(v->hex) / 2;
		astra_buf_addf(&b, "([]() { typedef std::remove_cv<%s>::type astra_t; "
			       "alignas(astra_t) static const unsigned char astra_b[] = {", p->type);
		for (i = 0; i < n; i++)
			astra_buf_addf(&b, "%s0x%.2s", i ? "," : " ", v->hex + 2 * i);
		astra_buf_addf(&b, " }; static_assert(sizeof(astra_b) == sizeof(astra_t), \"astra-cc: captured "
			       "size\"); return *reinterpret_cast<const astra_t *>(astra_b); }())");
		return astra_buf_detach(&b, NULL);
	}
	return NULL;
}

/* ------------------------------------------------------------ choosing shapes */

/* Can shape s be tested as the kernel's description?  why says why not. */
static int usable(const struct astra_kernel *k, const struct astra_capture_shape *s, int describe,
		  struct astra_buf *why)
{
	size_t i;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		if (!p->is_pointer) {
			const struct astra_capture_value *v = scalar_of(s, (int)i);
			char *lit = v ? literal(v, p) : NULL;
			int ok = lit != NULL;
			free(lit);
			if (!ok) {
				astra_buf_addf(why, "no value for scalar %s", p->name);
				return 0;
			}
		} else if (describe) {
			const struct astra_capture_buffer *b = buffer_of(s, (int)i);
			if (!b || b->count < 0) {
				astra_buf_addf(why, "the allocation behind %s was not found (not device memory?)", p->name);
				return 0;
			}
		}
	}
	for (i = 0; describe && i < s->nr_types; i++)
		if (!s->types[i].text) {
			astra_buf_addf(why, "template argument %s cannot be written in C++", s->types[i].name);
			return 0;
		}
	return 1;
}

static const struct astra_capture_shape *sort_base;

static int by_bytes_desc(const void *a, const void *b)
{
	const struct astra_capture_shape *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
	long long bx = astra_capture_shape_bytes(x), by = astra_capture_shape_bytes(y);
	if (bx != by)
		return bx > by ? -1 : 1;
	return x->launches > y->launches ? -1 : x->launches < y->launches;
}

/*
 * The shapes to test, as indexes into c->shapes (most bytes first): the
 * largest, then the most launched, then the smallest, up to max.
 */
static size_t choose(const struct astra_capture *c, const int *ok, size_t max, size_t *pick)
{
	size_t *cand = xmalloc((c->nr_shapes + 1) * sizeof(*cand));
	size_t n = 0, nc = 0, i, j;
	for (i = 0; i < c->nr_shapes; i++)
		if (ok[i])
			cand[nc++] = i;
	if (!nc || !max) {
		free(cand);
		return 0;
	}
	sort_base = c->shapes;
	qsort(cand, nc, sizeof(*cand), by_bytes_desc);
	pick[n++] = cand[0];
	if (nc > 1 && max > 1) {
		/* Room for the smallest at the end; the middle goes by launches. */
		size_t room = max - (max > 2 ? 2 : 1);
		for (j = 0; j < room && n < nc - 1; j++) {
			size_t best = SIZE_MAX;
			for (i = 1; i + 1 < nc; i++) {
				size_t q, taken = 0;
				for (q = 0; q < n; q++)
					taken |= pick[q] == cand[i];
				if (!taken && (best == SIZE_MAX || c->shapes[cand[i]].launches > c->shapes[best].launches))
					best = cand[i];
			}
			if (best == SIZE_MAX)
				break;
			pick[n++] = best;
		}
		pick[n++] = cand[nc - 1];
	}
	free(cand);
	/* Most bytes first, as the pragma's shapes are by convention. */
	sort_base = c->shapes;
	qsort(pick, n, sizeof(*pick), by_bytes_desc);
	return n;
}

/* ------------------------------------------------------------ inference */

/* The integer scalar parameters: indexes into k->params. */
static size_t int_params(const struct astra_kernel *k, const struct astra_capture *c, const size_t *pick, size_t n,
			 size_t *out)
{
	size_t i, s, nr = 0;
	for (i = 0; i < k->nr_params; i++) {
		int all = !k->params[i].is_pointer && n > 0;
		for (s = 0; s < n && all; s++) {
			long long v;
			all = int_value(scalar_of(&c->shapes[pick[s]], (int)i), &v);
		}
		if (all)
			out[nr++] = i;
	}
	return nr;
}

static long long ival(const struct astra_capture *c, size_t shape, size_t param)
{
	long long v = 0;
	int_value(scalar_of(&c->shapes[shape], (int)param), &v);
	return v;
}

typedef long long (*target_fn)(const struct astra_capture *c, size_t shape, int which);

static long long t_count(const struct astra_capture *c, size_t shape, int which)
{
	const struct astra_capture_buffer *b = buffer_of(&c->shapes[shape], which);
	return b ? b->count : -1;
}

static long long t_grid(const struct astra_capture *c, size_t shape, int which)
{
	return c->shapes[shape].grid[which];
}

struct infer {
	const struct astra_kernel *k;
	const struct astra_capture *c;
	const size_t *pick;
	size_t n;
	size_t ip[64];
	size_t nip;
	target_fn target;
	int which;
};

/* Does value(shape) = (mul * prod(params) + div - 1) / div hold at every shape? */
static int fits(const struct infer *f, const size_t *ps, size_t np, long long mul, long long div)
{
	size_t s, i;
	for (s = 0; s < f->n; s++) {
		long long v = mul, want = f->target(f->c, f->pick[s], f->which);
		for (i = 0; i < np; i++) {
			long long x = ival(f->c, f->pick[s], ps[i]);
			if (x <= 0 || v > LLONG_MAX / x)
				return 0;
			v *= x;
		}
		if (div > 1)
			v = (v + div - 1) / div;
		if (v != want)
			return 0;
	}
	return 1;
}

static char *product_text(const struct infer *f, const size_t *ps, size_t np, long long mul)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (mul != 1 || !np)
		astra_buf_addf(&b, "%lld", mul);
	for (i = 0; i < np; i++) {
		if (b.len)
			astra_buf_addch(&b, '*');
		astra_buf_adds(&b, f->k->params[ps[i]].name);
	}
	return astra_buf_detach(&b, NULL);
}

/*
 * Does a product of np of the integer scalars, mul times it divided by div
 * (rounded up), give the target at every chosen shape?  The scalars go to
 * ps[]; with distinct, each at most once, else only a product that takes
 * one twice or more.
 */
static int fitting_product(const struct infer *f, size_t *ps, size_t np, long long mul, long long div, int distinct)
{
	size_t a, b, c;
	for (a = 0; a < f->nip; a++) {
		ps[0] = f->ip[a];
		if (np == 1) {
			if (distinct && fits(f, ps, 1, mul, div))
				return 1;
			continue;
		}
		for (b = a; b < f->nip; b++) {
			ps[1] = f->ip[b];
			if (np == 2) {
				if ((b > a) == distinct && fits(f, ps, 2, mul, div))
					return 1;
				continue;
			}
			for (c = b; c < f->nip; c++) {
				ps[2] = f->ip[c];
				if ((b > a && c > b) == distinct && fits(f, ps, 3, mul, div))
					return 1;
			}
		}
	}
	return 0;
}

/*
 * The simplest expression of the integer scalars whose value,
 * ceil(mul * product / div), is the target at every chosen shape, in the
 * order below (divs[0] is the block size for a grid); or NULL.
 */
static char *infer_expr(struct infer *f, const long long *divs, size_t ndivs, int max_mul)
{
	size_t ps[3], d, np;
	long long mul = 1;
	int phase, distinct;
	/*
	 * Simplest first: plain products of the scalars (divided by the first
	 * divisor, the block size, for a grid), then the other divisors, then
	 * constant multipliers (2*tokens*d); for each number of factors, the
	 * products of different scalars before those that take one twice.
	 * With one captured shape many expressions fit; the order makes the
	 * likely one win (rows*cols, not 64*cols when rows is 64, nor
	 * rows*rows when the matrix is square).
	 */
	for (phase = 0; phase < 3; phase++) {
		for (d = 0; d <= ndivs; d++) {
			long long div = d ? divs[d - 1] : 1;
			if ((phase == 0 && d > 1) || (phase == 1 && d < 2) || (phase == 2 && d > 0))
				continue;
			for (mul = phase == 2 ? 2 : 1; mul <= (phase == 2 ? max_mul : 1); mul++)
				for (np = 1; np <= 3; np++)
					for (distinct = 1; distinct >= 0; distinct--)
						if (fitting_product(f, ps, np, mul, div, distinct))
							goto found;
		}
	}
	return NULL;
found:
	{
		char *prod = product_text(f, ps, np, mul);
		char *e;
		if (d == 0)
			e = prod;
		else {
			e = xasprintf("(%s + %lld) / %lld", prod, divs[d - 1] - 1, divs[d - 1]);
			free(prod);
		}
		return e;
	}
}

/* The same value at every chosen shape? */
static int constant(const struct infer *f, long long *v)
{
	size_t s;
	for (s = 0; s < f->n; s++) {
		long long x = f->target(f->c, f->pick[s], f->which);
		if (s && x != *v)
			return 0;
		*v = x;
	}
	return f->n > 0;
}

/* ------------------------------------------------------------ the kernel */

static const char *how_to_capture =
	"build with ASTRA_CC_CAPTURE=1 (or `astra-cc --capture -- <nvcc command>`), run the program once, "
	"then warm up (doc/capture.md); or describe the kernel with shapes(), buffers() and launch()";

static void note(struct astra_captured_info *info, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void note(struct astra_captured_info *info, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	astra_vec_push_owned(&info->notes, s);
}

/* "T=__half" for a shape's template arguments. */
static char *types_text(const struct astra_capture_shape *s)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < s->nr_types; i++)
		astra_buf_addf(&b, "%s%s=%s", i ? " " : "", s->types[i].name, s->types[i].text ? s->types[i].text : "?");
	return astra_buf_detach(&b, NULL);
}

static char *c_string(const char *s)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_addch(&b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			astra_buf_addch(&b, '\\');
		astra_buf_addch(&b, *s);
	}
	astra_buf_addch(&b, '"');
	return astra_buf_detach(&b, NULL);
}

/* A pragma shape's label, for info->shapes. */
static char *set_label(const struct astra_assign_set *s)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < s->nr; i++)
		if (strncmp(s->items[i].name, "astra_", 6))
			astra_buf_addf(&b, "%s%s=%s", b.len ? " " : "", s->items[i].name, s->items[i].value);
	return astra_buf_detach(&b, NULL);
}

/* Does the pragma's own description use names its shapes define beyond the scalars? */
static const char *helper_name(const struct astra_kernel *k)
{
	size_t i, j, q;
	for (i = 0; i < k->pragma.nr_shapes; i++)
		for (j = 0; j < k->pragma.shapes[i].nr; j++) {
			const char *n = k->pragma.shapes[i].items[j].name;
			int param = 0;
			for (q = 0; q < k->nr_params; q++)
				param |= k->params[q].name && !strcmp(k->params[q].name, n);
			if (!param)
				return n;
		}
	return NULL;
}

static void describe_outputs(const struct astra_kernel *k, const struct astra_capture *c, struct astra_pragma *p,
			     struct astra_captured_info *info)
{
	struct astra_buf out = ASTRA_BUF_INIT, in = ASTRA_BUF_INIT, unk = ASTRA_BUF_INIT, tol = ASTRA_BUF_INIT;
	size_t i, s;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *prm = &k->params[i];
		const struct astra_tolerance *t;
		int yes = 0, no = 0;
		if (!prm->is_pointer || prm->is_const)
			continue;
		t = astra_pragma_tolerance(p, prm->name);
		for (s = 0; s < c->nr_shapes; s++) {
			const struct astra_capture_buffer *b = buffer_of(&c->shapes[s], (int)i);
			if (b && b->written == 1)
				yes++;
			else if (b && b->written == 0)
				no++;
		}
		if (yes || !no) {
			add_output(p, prm->name);
			astra_buf_addf(yes ? &out : &unk, "%s%s", (yes ? out.len : unk.len) ? ", " : "", prm->name);
		} else if (t && t->name) {
			/* The user gave its tolerance: an output, whatever these runs showed. */
			add_output(p, prm->name);
			astra_buf_addf(&tol, "%s%s", tol.len ? ", " : "", prm->name);
		} else {
			astra_buf_addf(&in, "%s%s", in.len ? ", " : "", prm->name);
		}
	}
	if (!p->nr_outputs) {
		/* Nothing changed anywhere: compare every non-const pointer rather than nothing. */
		for (i = 0; i < k->nr_params; i++)
			if (k->params[i].is_pointer && !k->params[i].is_const)
				add_output(p, k->params[i].name);
		note(info, "no launch changed any buffer: every non-const pointer is compared as an output");
	}
	if (out.len)
		note(info, "outputs inferred: %s (changed by the captured launches); confirm with outputs(...)", out.buf);
	if (unk.len)
		note(info, "outputs assumed: %s (never measured: no launch could be checked); confirm with outputs(...)",
		     unk.buf);
	if (tol.len)
		note(info, "outputs from tolerance(): %s (unchanged by every measured launch, but the pragma gives "
			   "a tolerance)", tol.buf);
	if (in.len)
		note(info, "read only: %s (unchanged by every measured launch; if the kernel writes it, name it in "
			   "outputs(...))", in.buf);
	astra_buf_release(&out);
	astra_buf_release(&in);
	astra_buf_release(&unk);
	astra_buf_release(&tol);
}

static void describe_aliasing(const struct astra_kernel *k, const struct astra_capture *c,
			      struct astra_captured_info *info)
{
	size_t s, b;
	long long aliased = 0, seen = 0;
	const char *a1 = NULL, *a2 = NULL;
	for (s = 0; s < c->nr_shapes; s++) {
		int any = 0;
		for (b = 0; b < c->shapes[s].nr_bufs; b++) {
			const struct astra_capture_buffer *x = &c->shapes[s].bufs[b];
			if (x->same_as != x->index) {
				any = 1;
				a1 = x->name;
				a2 = (size_t)x->same_as < k->nr_params ? k->params[x->same_as].name : "?";
			}
		}
		aliased += any ? c->shapes[s].launches : 0;
		seen += c->shapes[s].launches;
	}
	if (aliased)
		note(info, "%s and %s point into the same allocation in %lld captured launch%s: the test gives each its own "
			   "buffer", a1, a2, aliased, aliased == 1 ? "" : "es");
	else if (seen && !(k->pragma.flags & ASTRA_PRAGMA_NOALIAS)) {
		note(info, "every pointer had an allocation of its own in the %lld captured launch%s; if that always holds, "
			   "`#pragma astra noalias` lets the rules add __restrict__", seen, seen == 1 ? "" : "es");
		astra_vec_push(&info->advice, "#pragma astra noalias");
	}
}

/*
 * Counts that stop before the allocation's end (a pool): which pointer
 * ends where, at the chosen shapes (doc/capture.md, What is recorded).
 */
static void describe_bounds(const struct astra_kernel *k, const struct astra_capture *c, const size_t *pick, size_t n,
			    struct astra_captured_info *info)
{
	struct astra_buf arg = ASTRA_BUF_INIT, wr = ASTRA_BUF_INIT;
	size_t s, b, i;
	for (i = 0; i < k->nr_params; i++) {
		int by_arg = 0, by_written = 0;
		for (s = 0; s < n; s++) {
			const struct astra_capture_shape *sh = &c->shapes[pick[s]];
			for (b = 0; b < sh->nr_bufs; b++)
				if (sh->bufs[b].index == (int)i) {
					by_arg |= sh->bufs[b].bound == ASTRA_CAPTURE_BOUND_ARGUMENT;
					by_written |= sh->bufs[b].bound == ASTRA_CAPTURE_BOUND_WRITTEN;
				}
		}
		if (by_written)
			astra_buf_addf(&wr, "%s%s", wr.len ? ", " : "", k->params[i].name);
		else if (by_arg)
			astra_buf_addf(&arg, "%s%s", arg.len ? ", " : "", k->params[i].name);
	}
	if (wr.len)
		note(info, "%s: up to what the launch changed, not to the end of the allocation", wr.buf);
	if (arg.len)
		note(info, "%s: up to the next pointer argument into the same allocation, not to its end", arg.buf);
	astra_buf_release(&arg);
	astra_buf_release(&wr);
}

/* The smallest and largest element of a captured integer buffer; 0 when it cannot be read. */
static int data_minmax(const char *path, long long elem_size, int sign, long long *lo, long long *hi)
{
	unsigned char buf[65536];
	size_t n, i, seen = 0;
	FILE *f;
	if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8)
		return 0;
	if (!(f = fopen(path, "rb")))
		return 0;
	while ((n = fread(buf, 1, sizeof(buf) - sizeof(buf) % 8, f)) > 0) {
		for (i = 0; i + (size_t)elem_size <= n; i += (size_t)elem_size) {
			long long v;
			if (elem_size == 1)
				v = sign == 1 ? (long long)*(int8_t *)(buf + i) : (long long)*(uint8_t *)(buf + i);
			else if (elem_size == 2) {
				int16_t x;
				memcpy(&x, buf + i, 2);
				v = sign == 1 ? (long long)x : (long long)(uint16_t)x;
			} else if (elem_size == 4) {
				int32_t x;
				memcpy(&x, buf + i, 4);
				v = sign == 1 ? (long long)x : (long long)(uint32_t)x;
			} else {
				memcpy(&v, buf + i, 8);
			}
			if (!seen || v < *lo)
				*lo = v;
			if (!seen || v > *hi)
				*hi = v;
			seen++;
		}
	}
	fclose(f);
	return seen > 0;
}

/*
 * Index buffers: a const integer buffer whose captured inputs were kept
 * gets range(name: min .. max) of the values the program passed, unless
 * the pragma gives a range for it, so that the random trials draw indices
 * the kernel can take (a gather, an embedding, an expert id).
 */
static void describe_ranges(const struct astra_kernel *k, struct astra_cache *cache, const struct astra_capture *c,
			    const size_t *pick, size_t n, struct astra_pragma *p, struct astra_captured_info *info)
{
	size_t i, s, r;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *prm = &k->params[i];
		long long lo = 0, hi = 0;
		int sign = prm->is_pointer && prm->is_const ? astra_type_integer_sign(prm->elem_type) : 0, any = 0, given = 0;
		if (!sign)
			continue;
		for (r = 0; r < p->nr_ranges; r++)
			given |= !strcmp(p->ranges[r].name, prm->name);
		if (given)
			continue;
		for (s = 0; s < n; s++) {
			const struct astra_capture_buffer *b = buffer_of(&c->shapes[pick[s]], (int)i);
			long long l, h;
			char *path;
			if (!b || !b->data)
				continue;
			path = astra_capture_data_path(cache, b->data);
			if (data_minmax(path, b->elem_size, sign, &l, &h)) {
				lo = any ? (l < lo ? l : lo) : l;
				hi = any ? (h > hi ? h : hi) : h;
				any = 1;
			}
			free(path);
		}
		if (!any)
			continue;
		ALLOC_GROW(p->ranges, p->nr_ranges + 1, p->alloc_ranges);
		memset(&p->ranges[p->nr_ranges], 0, sizeof(p->ranges[0]));
		p->ranges[p->nr_ranges].name = xstrdup(prm->name);
		p->ranges[p->nr_ranges].lo = xasprintf("%lld", lo);
		p->ranges[p->nr_ranges].hi = xasprintf("%lld", hi);
		p->nr_ranges++;
		note(info, "range inferred: range(%s: %lld .. %lld) (the captured indices); confirm with range(...)",
		     prm->name, lo, hi);
	}
}

/* The launch geometry: block and shmem constant, grid inferred; else per shape. */
static void describe_launch(const struct astra_kernel *k, const struct astra_capture *c, const size_t *pick, size_t n,
			    struct astra_pragma *p, int per_shape[3], struct astra_captured_info *info)
{
	struct infer f;
	long long v[3], bx = 0, shm = 0;
	char *g[3] = { NULL, NULL, NULL };
	int i, block_const = 1, dims = 1;
	size_t s;

	memset(&f, 0, sizeof(f));
	f.k = k;
	f.c = c;
	f.pick = pick;
	f.n = n;
	f.nip = int_params(k, c, pick, n, f.ip);
	for (s = 0; s < n; s++)
		for (i = 0; i < 3; i++) {
			if (c->shapes[pick[s]].block[i] != c->shapes[pick[0]].block[i])
				block_const = 0;
			if (i && (c->shapes[pick[s]].grid[i] != 1 || c->shapes[pick[s]].block[i] != 1))
				dims = 3;
		}
	per_shape[0] = per_shape[1] = per_shape[2] = 0;
	if (block_const) {
		const long long *bl = c->shapes[pick[0]].block;
		bx = bl[0];
		p->block = dims == 1 ? xasprintf("%lld", bl[0]) : xasprintf("dim3(%lld, %lld, %lld)", bl[0], bl[1], bl[2]);
	} else {
		p->block = xstrdup("astra_block");
		per_shape[1] = 1;
	}
	{
		/* Divisors worth trying: the block size first (the usual ceil-div), then powers of two. */
		long long divs[12];
		size_t nd = 0;
		long long q;
		if (bx > 1)
			divs[nd++] = bx;
		for (q = 2; q <= 1024; q *= 2)
			if (q != bx && nd < ARRAY_SIZE(divs))
				divs[nd++] = q;
		f.target = t_grid;
		for (i = 0; i < (dims == 1 ? 1 : 3) && !per_shape[0]; i++) {
			int same;
			f.which = i;
			same = constant(&f, &v[i]);
			/*
			 * A y or z the same at every shape is a number in the
			 * launch (mostly 1), not an expression that happens
			 * to round to it ((height + 63) / 64 at 32 and 64).
			 */
			if (!(i && same && (n > 1 || v[i] == 1)))
				g[i] = infer_expr(&f, divs, nd, 1);
			if (!g[i] && same)
				g[i] = xasprintf("%lld", v[i]);
			if (!g[i])
				per_shape[0] = 1;
		}
	}
	if (per_shape[0])
		p->grid = xstrdup("astra_grid");
	else if (dims == 1)
		p->grid = xstrdup(g[0]);
	else
		p->grid = xasprintf("dim3(%s, %s, %s)", g[0], g[1], g[2]);
	for (s = 0; s < n; s++)
		if (c->shapes[pick[s]].shmem != c->shapes[pick[0]].shmem)
			per_shape[2] = 1;
	shm = c->shapes[pick[0]].shmem;
	if (per_shape[2])
		p->shmem = xstrdup("astra_shmem");
	else if (shm)
		p->shmem = xasprintf("%lld", shm);
	note(info, "launch inferred from %zu captured shape%s: launch(grid=%s, block=%s%s%s)%s; confirm with launch(...)", n,
	     n == 1 ? "" : "s", per_shape[0] ? "<per shape>" : p->grid, per_shape[1] ? "<per shape>" : p->block,
	     p->shmem ? ", shmem=" : "", p->shmem ? (per_shape[2] ? "<per shape>" : p->shmem) : "",
	     n == 1 ? " (one shape: another expression may fit as well)" : "");
	for (i = 0; i < 3; i++)
		free(g[i]);
}

int astra_captured_kernel(struct astra_cache *cache, const char *key, int cc, const struct astra_kernel *k,
			  struct astra_kernel *out, struct astra_captured_info *info)
{
	struct astra_capture cap;
	struct astra_pragma *p;
	struct astra_buf why = ASTRA_BUF_INIT;
	size_t i, s, n = 0, max = (size_t)astra_config_int(ASTRA_CFG_CAPTURE_TEST_SHAPES);
	size_t *pick = NULL;
	int *ok = NULL, describe, r, ret = 0;
	const char *helper;

	*out = *k;
	copy_pragma(&k->pragma, &out->pragma);
	p = &out->pragma;
	describe = info->by_capture = astra_pragma_by_capture(&k->pragma);
	info->nr_pragma = k->pragma.nr_shapes;
	for (i = 0; i < k->pragma.nr_shapes; i++) {
		char *l = set_label(&k->pragma.shapes[i]);
		astra_vec_pushf(&info->shapes, "%s  (pragma)", l);
		free(l);
	}
	r = cache ? astra_capture_load(cache, key, cc, (size_t)astra_config_int(ASTRA_CFG_CAPTURE_SHAPES), &cap) : 0;
	if (r <= 0) {
		if (describe) {
			info->missing = xasprintf("kernel %s has no test description and no captured launches: %s", k->name,
						  how_to_capture);
			ret = -1;
		}
		astra_capture_init(&cap);
		goto out;
	}
	info->have_capture = 1;
	info->launches = cap.launches;
	info->runs = cap.runs;
	info->dropped = cap.dropped;
	info->failed = cap.failed;
	info->nr_captured = cap.nr_shapes;
	if (!describe && (helper = helper_name(k)) != NULL) {
		note(info, "captured shapes are not added: the pragma's shapes define %s, which a capture cannot know", helper);
		goto out;
	}
	ok = xcalloc(cap.nr_shapes + 1, sizeof(*ok));
	for (s = 0; s < cap.nr_shapes; s++) {
		astra_buf_reset(&why);
		ok[s] = usable(k, &cap.shapes[s], describe, &why);
		if (!ok[s])
			note(info, "captured shape %s cannot be tested: %s", cap.shapes[s].id, why.buf);
	}
	pick = xcalloc(cap.nr_shapes + 1, sizeof(*pick));
	n = choose(&cap, ok, max, pick);
	if (!n && !cap.nr_shapes && cap.failed) {
		if (describe) {
			info->missing = xasprintf("kernel %s: none of its launches ran: %lld failed (the launch reported an "
						  "error: no GPU, a driver older than the runtime, or an earlier error the "
						  "program left pending); run the capture build where its kernels run",
						  k->name, cap.failed);
			ret = -1;
		}
		goto out;
	}
	if (!n) {
		if (describe) {
			info->missing = xasprintf("kernel %s: none of its %zu captured shape%s can be tested (see the notes); %s",
						  k->name, cap.nr_shapes, cap.nr_shapes == 1 ? "" : "s", how_to_capture);
			ret = -1;
		}
		goto out;
	}
	info->nr_used = n;

	if (describe) {
		int per_shape[3];
		struct infer f;
		struct astra_vec seen = ASTRA_VEC_INIT;
		/* types(): the captured instantiations, unless the pragma names its own. */
		if (k->is_template && !p->nr_types)
			for (s = 0; s < n; s++) {
				const struct astra_capture_shape *sh = &cap.shapes[pick[s]];
				char *t = types_text(sh);
				if (astra_vec_find(&seen, t) < 0) {
					struct astra_assign_set *set = new_set(&p->types, &p->nr_types, &p->alloc_types);
					astra_vec_push(&seen, t);
					for (i = 0; i < sh->nr_types; i++)
						set_add(set, sh->types[i].name, xstrdup(sh->types[i].text));
				}
				free(t);
			}
		astra_vec_clear(&seen);
		if (!p->nr_outputs)
			describe_outputs(k, &cap, p, info);
		describe_launch(k, &cap, pick, n, p, per_shape, info);
		/* buffers(): an expression of the scalars when one fits, else per shape. */
		memset(&f, 0, sizeof(f));
		f.k = k;
		f.c = &cap;
		f.pick = pick;
		f.n = n;
		f.nip = int_params(k, &cap, pick, n, f.ip);
		f.target = t_count;
		for (i = 0; i < k->nr_params; i++) {
			long long cst;
			char *e;
			if (!k->params[i].is_pointer)
				continue;
			f.which = (int)i;
			e = infer_expr(&f, NULL, 0, 64);
			if (!e && constant(&f, &cst))
				e = xasprintf("%lld", cst);
			add_buffer(p, k->params[i].name, e ? e : xasprintf("astra_n_%s", k->params[i].name));
		}
		{
			struct astra_buf bl = ASTRA_BUF_INIT;
			for (i = 0; i < p->nr_buffers; i++)
				astra_buf_addf(&bl, "%s%s[%s]", i ? ", " : "", p->buffers[i].name,
					       strncmp(p->buffers[i].count, "astra_n_", 8) ? p->buffers[i].count : "<per shape>");
			note(info, "buffers inferred: buffers(%s)%s", bl.buf,
			     n == 1 ? " (one shape: another expression may fit as well)" : "");
			astra_buf_release(&bl);
		}
		describe_bounds(k, &cap, pick, n, info);
		describe_aliasing(k, &cap, info);
		if (cache)
			describe_ranges(k, cache, &cap, pick, n, p, info);
		/* The shapes. */
		for (s = 0; s < n; s++) {
			const struct astra_capture_shape *sh = &cap.shapes[pick[s]];
			struct astra_assign_set *set = new_set(&p->shapes, &p->nr_shapes, &p->alloc_shapes);
			char *l, *types = types_text(sh);
			for (i = 0; i < k->nr_params; i++) {
				const struct astra_param *prm = &k->params[i];
				const struct astra_capture_buffer *b = buffer_of(sh, (int)i);
				if (!prm->is_pointer) {
					set_add(set, prm->name, literal(scalar_of(sh, (int)i), prm));
					continue;
				}
				{
					size_t q;
					for (q = 0; q < p->nr_buffers; q++)
						if (!strcmp(p->buffers[q].name, prm->name) &&
						    !strncmp(p->buffers[q].count, "astra_n_", 8)) {
							char *nm = xasprintf("astra_n_%s", prm->name);
							set_add(set, nm, xasprintf("%lldll", b ? b->count : 0));
							free(nm);
						}
				}
				if (b && b->data && cache) {
					char *path = astra_capture_data_path(cache, b->data);
					char *nm = xasprintf("astra_data_%s", prm->name);
					set_add(set, nm, c_string(path));
					free(nm);
					free(path);
				}
			}
			if (per_shape[0])
				set_add(set, "astra_grid", xasprintf("dim3(%lld, %lld, %lld)", sh->grid[0], sh->grid[1], sh->grid[2]));
			if (per_shape[1])
				set_add(set, "astra_block",
					xasprintf("dim3(%lld, %lld, %lld)", sh->block[0], sh->block[1], sh->block[2]));
			if (per_shape[2])
				set_add(set, "astra_shmem", xasprintf("%lld", sh->shmem));
			{
				char *src = xasprintf("captured: %lld launch%s%s%s", sh->launches, sh->launches == 1 ? "" : "es",
						      *types ? ", " : "", types);
				set_add(set, "astra_source", c_string(src));
				l = set_label(set);
				astra_vec_pushf(&info->shapes, "%s  (%s)", l, src);
				free(src);
				free(l);
			}
			free(types);
		}
	} else {
		/* A described kernel: the captured scalars as more shapes, tested with the pragma's description. */
		for (s = 0; s < n; s++) {
			const struct astra_capture_shape *sh = &cap.shapes[pick[s]];
			struct astra_assign_set *set = new_set(&p->shapes, &p->nr_shapes, &p->alloc_shapes);
			char *src = xasprintf("captured: %lld launch%s", sh->launches, sh->launches == 1 ? "" : "es");
			char *l;
			for (i = 0; i < k->nr_params; i++)
				if (!k->params[i].is_pointer)
					set_add(set, k->params[i].name, literal(scalar_of(sh, (int)i), &k->params[i]));
			set_add(set, "astra_source", c_string(src));
			l = set_label(set);
			astra_vec_pushf(&info->shapes, "%s  (%s)", l, src);
			free(l);
			free(src);
		}
	}
	ret = 1;
out:
	if (ret >= 0 && !info->have_capture && !describe)
		ret = 0;
	astra_capture_release(&cap);
	astra_buf_release(&why);
	free(pick);
	free(ok);
	return ret;
}
