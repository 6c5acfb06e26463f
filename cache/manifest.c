/*
 * manifest.c - the entry data model and its file format (see manifest.h).
 *
 * Decoding treats its input as hostile: it is whatever is on disk, possibly
 * truncated by a crash, flipped by a bad disk or written by another version.
 * Every length is checked before use and every JSON member is optional to
 * the parser; the checks that matter are explicit in check_manifest().
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>


#include "lib/hash.h"
#include "lib/json.h"
#include "lib/util.h"
#include "cache/manifest.h"

static const char *const verdict_names[] = {
	[ASTRA_VERDICT_NONE] = "none",
	[ASTRA_VERDICT_FASTER] = "faster",
	[ASTRA_VERDICT_NO_FASTER] = "no-faster-variant",
	[ASTRA_VERDICT_FAILED] = "failed",
};

const char *astra_verdict_name(enum astra_verdict v)
{
	if ((unsigned)v >= ARRAY_SIZE(verdict_names))
		return "none";
	return verdict_names[v];
}

enum astra_verdict astra_verdict_parse(const char *name)
{
	size_t i;
	if (!name)
		return ASTRA_VERDICT_NONE;
	for (i = 1; i < ARRAY_SIZE(verdict_names); i++)
		if (!strcmp(name, verdict_names[i]))
			return (enum astra_verdict)i;
	return ASTRA_VERDICT_NONE;
}

void astra_entry_init(struct astra_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->transcript_len = -1;
}

void astra_entry_release(struct astra_entry *e)
{
	size_t i;
	free(e->key);
	free(e->reason);
	free(e->kernel);
	free(e->file);
	for (i = 0; i < e->nr_inputs; i++) {
		free(e->inputs[i].label);
		free(e->inputs[i].value);
	}
	free(e->inputs);
	free(e->variant);
	free(e->origin);
	for (i = 0; i < e->nr_variants; i++) {
		free(e->variants[i].text);
		free(e->variants[i].origin);
	}
	free(e->variants);
	for (i = 0; i < e->nr_params; i++)
		free(e->params[i]);
	free(e->params);
	for (i = 0; i < e->nr_points; i++) {
		free(e->points[i].shape);
		free(e->points[i].values);
		free(e->points[i].median_us);
		free(e->points[i].spread);
	}
	free(e->points);
	for (i = 0; i < e->nr_timings; i++)
		free(e->timings[i].shape);
	free(e->timings);
	for (i = 0; i < e->nr_shapes; i++)
		free(e->shapes[i]);
	free(e->shapes);
	free(e->seeds);
	free(e->device);
	free(e->driver);
	free(e->nvcc_version);
	free(e->optimizer);
	free(e->model);
	free(e->transcript_checksum);
	astra_json_free(e->extra);
	astra_entry_init(e);
}

void astra_entry_add_input(struct astra_entry *e, const char *label, const char *value)
{
	ALLOC_GROW(e->inputs, e->nr_inputs + 1, e->alloc_inputs);
	e->inputs[e->nr_inputs].label = xstrdup(label);
	e->inputs[e->nr_inputs].value = xstrdup(value ? value : "");
	e->nr_inputs++;
}

void astra_entry_add_timing(struct astra_entry *e, const char *shape, double baseline_us,
			    double baseline_spread, double variant_us, double variant_spread)
{
	struct astra_entry_timing *t;
	ALLOC_GROW(e->timings, e->nr_timings + 1, e->alloc_timings);
	t = &e->timings[e->nr_timings++];
	t->shape = xstrdup(shape ? shape : "");
	t->baseline_us = baseline_us;
	t->baseline_spread = baseline_spread;
	t->variant_us = variant_us;
	t->variant_spread = variant_spread;
}

void astra_entry_add_shape(struct astra_entry *e, const char *shape)
{
	ALLOC_GROW(e->shapes, e->nr_shapes + 1, e->alloc_shapes);
	e->shapes[e->nr_shapes++] = xstrdup(shape);
}

void astra_entry_add_seed(struct astra_entry *e, long long seed)
{
	ALLOC_GROW(e->seeds, e->nr_seeds + 1, e->alloc_seeds);
	e->seeds[e->nr_seeds++] = seed;
}

void astra_entry_set_variant(struct astra_entry *e, const char *text, size_t len)
{
	free(e->variant);
	e->variant = text ? xstrndup(text, len) : NULL;
	e->variant_len = text ? len : 0;
}

void astra_entry_add_variant(struct astra_entry *e, const char *text, size_t len, const char *origin)
{
	struct astra_entry_variant *v;
	ALLOC_GROW(e->variants, e->nr_variants + 1, e->alloc_variants);
	v = &e->variants[e->nr_variants++];
	v->text = xstrndup(text ? text : "", text ? len : 0);
	v->len = text ? len : 0;
	v->origin = origin ? xstrdup(origin) : NULL;
}

void astra_entry_add_param(struct astra_entry *e, const char *name)
{
	ALLOC_GROW(e->params, e->nr_params + 1, e->alloc_params);
	e->params[e->nr_params++] = xstrdup(name);
}

void astra_entry_add_point(struct astra_entry *e, const char *shape, const double *values, int choice,
			   const double *median_us, const double *spread)
{
	struct astra_entry_point *p;
	size_t n = 1 + e->nr_variants, i;
	ALLOC_GROW(e->points, e->nr_points + 1, e->alloc_points);
	p = &e->points[e->nr_points++];
	p->shape = xstrdup(shape ? shape : "");
	p->values = xcalloc(e->nr_params ? e->nr_params : 1, sizeof(double));
	for (i = 0; values && i < e->nr_params; i++)
		p->values[i] = values[i];
	p->choice = choice;
	p->median_us = xcalloc(n, sizeof(double));
	p->spread = xcalloc(n, sizeof(double));
	for (i = 0; i < n; i++) {
		p->median_us[i] = median_us ? median_us[i] : 0;
		p->spread[i] = spread ? spread[i] : 0;
	}
}

int astra_entry_is_dispatch(const struct astra_entry *e)
{
	return e->nr_variants > 0;
}

int astra_entry_format(const struct astra_entry *e)
{
	return astra_entry_is_dispatch(e) ? 2 : 1;
}

static int c_identifier(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

int astra_entry_check_dispatch(const struct astra_entry *e, const char **why)
{
	size_t i, j, k;
	if (!e->nr_variants)
		return 0;
	if (e->verdict != ASTRA_VERDICT_FASTER)
		return *why = "a variant set goes with the verdict `faster`", -1;
	if (e->variant)
		return *why = "an entry holds one variant or a variant set, not both", -1;
	if (!e->nr_points)
		return *why = "a variant set has no measured shapes", -1;
	for (i = 0; i < e->nr_variants; i++)
		if (!e->variants[i].len)
			return *why = "a variant of the set is empty", -1;
	for (i = 0; i < e->nr_params; i++) {
		if (!c_identifier(e->params[i]))
			return *why = "a dispatch parameter is not a C identifier", -1;
		for (j = 0; j < i; j++)
			if (!strcmp(e->params[i], e->params[j]))
				return *why = "a dispatch parameter is named twice", -1;
	}
	for (i = 0; i < e->nr_points; i++) {
		const struct astra_entry_point *p = &e->points[i];
		if (p->choice < 0 || (size_t)p->choice > e->nr_variants)
			return *why = "a shape's choice is not a version of the set", -1;
		for (j = 0; j < i; j++) {
			int same = 1;
			for (k = 0; k < e->nr_params && same; k++)
				same = p->values[k] == e->points[j].values[k];
			if (same && p->choice != e->points[j].choice)
				return *why = "two shapes the launcher cannot tell apart have different choices", -1;
		}
	}
	for (i = 1; i <= e->nr_variants; i++) {
		int used = 0;
		for (j = 0; j < e->nr_points && !used; j++)
			used = (size_t)e->points[j].choice == i;
		if (!used)
			return *why = "a variant of the set is chosen at no shape", -1;
	}
	return 0;
}

void astra_checksum(const void *data, size_t len, char out[25])
{
	snprintf(out, 25, "xxh3-64:%016llx", astra_hash64(data, len));
}

int astra_key_ok(const char *key)
{
	size_t i;
	if (!key)
		return 0;
	for (i = 0; i < 32; i++)
		if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
			return 0;
	return key[32] == '\0';
}

/* ------------------------------------------------------------ encoding */

static void set_opt_str(struct astra_json *o, const char *k, const char *v)
{
	if (v)
		astra_json_set_str(o, k, v);
}

struct astra_json *astra_entry_manifest(const struct astra_entry *e)
{
	struct astra_json *m = astra_json_new_object(), *o, *a;
	char arch[32];
	size_t i;

	astra_json_set_num(m, "format", astra_entry_format(e));
	astra_json_set_str(m, "key", e->key ? e->key : "");
	astra_json_set_num(m, "cc", e->cc);
	snprintf(arch, sizeof(arch), "sm_%d", e->cc);
	astra_json_set_str(m, "arch", arch);
	astra_json_set_str(m, "verdict", astra_verdict_name(e->verdict));
	set_opt_str(m, "reason", e->reason);

	o = astra_json_set_object(m, "kernel");
	astra_json_set_str(o, "name", e->kernel ? e->kernel : "");
	set_opt_str(o, "file", e->file);
	if (e->line)
		astra_json_set_num(o, "line", e->line);

	o = astra_json_set_object(m, "inputs");
	for (i = 0; i < e->nr_inputs; i++)
		astra_json_set_str(o, e->inputs[i].label, e->inputs[i].value);

	if (e->variant) {
		char sum[25];
		size_t len = e->variant_len ? e->variant_len : strlen(e->variant);
		astra_checksum(e->variant, len, sum);
		o = astra_json_set_object(m, "variant");
		astra_json_set_str(o, "checksum", sum);
		astra_json_set_num(o, "bytes", (double)len);
		set_opt_str(o, "origin", e->origin);
	}
	if (e->nr_variants) {
		a = astra_json_set_array(m, "variants");
		for (i = 0; i < e->nr_variants; i++) {
			char sum[25];
			struct astra_json *vo = astra_json_new_object();
			astra_checksum(e->variants[i].text, e->variants[i].len, sum);
			astra_json_set_str(vo, "checksum", sum);
			astra_json_set_num(vo, "bytes", (double)e->variants[i].len);
			set_opt_str(vo, "origin", e->variants[i].origin);
			astra_json_push(a, vo);
		}
	}
	if (e->verdict == ASTRA_VERDICT_FASTER || e->speedup > 0)
		astra_json_set_num(m, "speedup", e->speedup);
	if (e->nr_variants) {
		struct astra_json *pa;
		size_t j;
		o = astra_json_set_object(m, "dispatch");
		a = astra_json_set_array(o, "params");
		for (i = 0; i < e->nr_params; i++)
			astra_json_push_str(a, e->params[i]);
		a = astra_json_set_array(o, "shapes");
		for (i = 0; i < e->nr_points; i++) {
			const struct astra_entry_point *p = &e->points[i];
			struct astra_json *po = astra_json_new_object();
			astra_json_set_str(po, "shape", p->shape);
			pa = astra_json_set_array(po, "values");
			for (j = 0; j < e->nr_params; j++)
				astra_json_push_num(pa, p->values[j]);
			astra_json_set_num(po, "choice", p->choice);
			pa = astra_json_set_array(po, "median_us");
			for (j = 0; j <= e->nr_variants; j++)
				astra_json_push_num(pa, p->median_us[j]);
			pa = astra_json_set_array(po, "spread");
			for (j = 0; j <= e->nr_variants; j++)
				astra_json_push_num(pa, p->spread[j]);
			astra_json_push(a, po);
		}
	}

	a = astra_json_set_array(m, "timings");
	for (i = 0; i < e->nr_timings; i++) {
		const struct astra_entry_timing *t = &e->timings[i];
		struct astra_json *ti = astra_json_new_object();
		astra_json_set_str(ti, "shape", t->shape);
		astra_json_set_num(ti, "baseline_us", t->baseline_us);
		astra_json_set_num(ti, "baseline_spread", t->baseline_spread);
		astra_json_set_num(ti, "variant_us", t->variant_us);
		astra_json_set_num(ti, "variant_spread", t->variant_spread);
		astra_json_push(a, ti);
	}
	a = astra_json_set_array(m, "shapes_tested");
	for (i = 0; i < e->nr_shapes; i++)
		astra_json_push_str(a, e->shapes[i]);
	a = astra_json_set_array(m, "seeds");
	for (i = 0; i < e->nr_seeds; i++)
		astra_json_push_num(a, (double)e->seeds[i]);

	o = astra_json_set_object(m, "device");
	set_opt_str(o, "name", e->device);
	astra_json_set_num(o, "cc", e->cc);
	set_opt_str(o, "driver", e->driver);
	o = astra_json_set_object(m, "toolchain");
	set_opt_str(o, "nvcc", e->nvcc_version);
	o = astra_json_set_object(m, "optimizer");
	set_opt_str(o, "name", e->optimizer);
	set_opt_str(o, "model", e->model);
	astra_json_set_num(m, "seconds", e->seconds);
	astra_json_set_num(m, "created", (double)e->created);
	if (e->transcript_checksum && e->transcript_len >= 0) {
		o = astra_json_set_object(m, "transcript");
		astra_json_set_str(o, "checksum", e->transcript_checksum);
		astra_json_set_num(o, "bytes", (double)e->transcript_len);
	}
	if (e->extra)
		astra_json_set(m, "extra", astra_json_dup(e->extra));
	return m;
}

int astra_entry_encode(const struct astra_entry *e, struct astra_buf *out, const char **why)
{
	struct astra_json *m;
	struct astra_buf body = ASTRA_BUF_INIT;
	char *text, sum[25];
	size_t vlen = e->variant ? (e->variant_len ? e->variant_len : strlen(e->variant)) : 0;
	size_t mlen, i;

	if (!astra_key_ok(e->key))
		return *why = "the key is not 32 lowercase hex digits", -1;
	if (e->cc <= 0 || e->cc > 9999)
		return *why = "no compute capability", -1;
	if (!e->kernel || !*e->kernel)
		return *why = "no kernel name", -1;
	if (e->verdict == ASTRA_VERDICT_NONE || (unsigned)e->verdict >= ARRAY_SIZE(verdict_names))
		return *why = "no verdict", -1;
	if (astra_entry_check_dispatch(e, why) < 0)
		return -1;
	for (i = 0; i < e->nr_variants; i++)
		vlen += e->variants[i].len;
	if ((e->verdict == ASTRA_VERDICT_FASTER) != (vlen > 0))
		return *why = "a variant goes with the verdict `faster`, and only with it", -1;

	m = astra_entry_manifest(e);
	text = astra_json_print(m, 1);
	astra_json_free(m);
	astra_buf_adds(&body, text);
	astra_buf_addch(&body, '\n');
	free(text);
	mlen = body.len;
	if (e->variant && vlen)
		astra_buf_add(&body, e->variant, vlen);
	for (i = 0; i < e->nr_variants; i++)
		astra_buf_add(&body, e->variants[i].text, e->variants[i].len);
	astra_checksum(body.buf, body.len, sum);
	astra_buf_addf(out, "%s%d %s %zu %zu\n", ASTRA_ENTRY_MAGIC, astra_entry_format(e), sum, mlen, vlen);
	astra_buf_add(out, body.buf, body.len);
	astra_buf_release(&body);
	return 0;
}

/* ------------------------------------------------------------ decoding */

/* Parse decimal digits at *p (no sign, no overflow); advances *p. */
static int parse_size(const char **p, const char *end, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	/* No leading zeros, so that there is one spelling per number. */
	if (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		if (v > (ULLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*s - '0');
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return -1;
	*p += n;
	return 0;
}

/* A whole number in [lo, hi] stored as a JSON number. */
static int get_int(const struct astra_json *o, const char *k, long long lo, long long hi, long long *out)
{
	const struct astra_json *j = astra_json_get(o, k);
	double v;
	if (!astra_json_is_number(j))
		return -1;
	v = astra_json_num(j, -1);
	if (!isfinite(v) || v < (double)lo || v > (double)hi || v != floor(v))
		return -1;
	*out = (long long)v;
	return 0;
}

static char *dup_opt(const struct astra_json *o, const char *k)
{
	const char *s = astra_json_get_str(o, k);
	return s ? xstrdup(s) : NULL;
}

static double finite_num(const struct astra_json *o, const char *k, int *bad)
{
	const struct astra_json *j = astra_json_get(o, k);
	double v;
	if (!j || astra_json_is_null(j))
		return 0;
	if (!astra_json_is_number(j)) {
		*bad = 1;
		return 0;
	}
	v = astra_json_num(j, 0);
	if (!isfinite(v))
		*bad = 1;
	return v;
}

/* A JSON array of exactly n finite numbers into out (n doubles). */
static int get_numbers(const struct astra_json *a, size_t n, double *out)
{
	size_t i;
	if (!astra_json_is_array(a) || astra_json_len(a) != n)
		return -1;
	for (i = 0; i < n; i++) {
		const struct astra_json *j = astra_json_at(a, i);
		if (!astra_json_is_number(j) || !isfinite(astra_json_num(j, 0)))
			return -1;
		out[i] = astra_json_num(j, 0);
	}
	return 0;
}

/* Format 2: the variants (their texts are the V bytes, in order) and the dispatch. */
static int fill_dispatch(struct astra_entry *e, const struct astra_json *m, const char *variant, size_t vlen,
			 const char **why)
{
	const struct astra_json *vs = astra_json_get(m, "variants"), *d = astra_json_get(m, "dispatch"), *a;
	size_t i, off = 0, nv = astra_json_len(vs), np;
	double *med = NULL, *spr = NULL, *val = NULL;
	long long n;
	int ret = -1;

	if (!astra_json_is_array(vs) || !nv)
		return *why = "a format 2 entry lists no variants", -1;
	for (i = 0; i < nv; i++) {
		const struct astra_json *v = astra_json_at(vs, i);
		char sum[25];
		if (get_int(v, "bytes", 1, LLONG_MAX, &n) < 0 || (unsigned long long)n > vlen - off)
			return *why = "the variants' lengths are not the entry's", -1;
		astra_checksum(variant + off, (size_t)n, sum);
		if (!astra_json_get_str(v, "checksum") || strcmp(sum, astra_json_get_str(v, "checksum")))
			return *why = "a variant's checksum is not the manifest's", -1;
		astra_entry_add_variant(e, variant + off, (size_t)n, astra_json_get_str(v, "origin"));
		off += (size_t)n;
	}
	if (off != vlen)
		return *why = "the variants' lengths are not the entry's", -1;
	if (!astra_json_is_object(d))
		return *why = "a format 2 entry has no dispatch", -1;
	a = astra_json_get(d, "params");
	if (!astra_json_is_array(a))
		return *why = "the dispatch has no parameter list", -1;
	for (i = 0; i < astra_json_len(a); i++) {
		const char *p = astra_json_str(astra_json_at(a, i));
		if (!p)
			return *why = "a dispatch parameter is not a string", -1;
		astra_entry_add_param(e, p);
	}
	np = e->nr_params;
	a = astra_json_get(d, "shapes");
	if (!astra_json_is_array(a))
		return *why = "the dispatch has no shapes", -1;
	val = xcalloc(np + 1, sizeof(double));
	med = xcalloc(nv + 1, sizeof(double));
	spr = xcalloc(nv + 1, sizeof(double));
	for (i = 0; i < astra_json_len(a); i++) {
		const struct astra_json *p = astra_json_at(a, i);
		const char *shape = astra_json_get_str(p, "shape");
		if (!shape || get_int(p, "choice", 0, (long long)nv, &n) < 0 ||
		    get_numbers(astra_json_get(p, "values"), np, val) < 0 ||
		    get_numbers(astra_json_get(p, "median_us"), nv + 1, med) < 0 ||
		    get_numbers(astra_json_get(p, "spread"), nv + 1, spr) < 0) {
			*why = "a shape of the dispatch is described badly";
			goto out;
		}
		astra_entry_add_point(e, shape, val, (int)n, med, spr);
	}
	ret = astra_entry_check_dispatch(e, why);
out:
	free(val);
	free(med);
	free(spr);
	return ret;
}

/* The manifest's own checks, then the fields.  0 or -1 with *why. */
static int fill(struct astra_entry *e, const struct astra_json *m, const char *variant, size_t vlen,
		const char *key, int cc, int format, const char **why)
{
	const struct astra_json *o, *a;
	long long n;
	size_t i;
	int bad = 0;
	char sum[25];

	if (!astra_json_is_object(m))
		return *why = "the manifest is not a JSON object", -1;
	if (get_int(m, "format", 0, INT_MAX, &n) < 0 || n != format)
		return *why = "the manifest's format version is not the header's", -1;
	if (!astra_key_ok(astra_json_get_str(m, "key")))
		return *why = "the manifest has no valid key", -1;
	if (key && strcmp(key, astra_json_get_str(m, "key")))
		return *why = "the manifest is for another key", -1;
	if (get_int(m, "cc", 1, 9999, &n) < 0)
		return *why = "the manifest has no valid compute capability", -1;
	if (cc && n != cc)
		return *why = "the manifest is for another architecture", -1;
	e->cc = (int)n;
	e->key = xstrdup(astra_json_get_str(m, "key"));
	e->verdict = astra_verdict_parse(astra_json_get_str(m, "verdict"));
	if (e->verdict == ASTRA_VERDICT_NONE)
		return *why = "the manifest has no known verdict", -1;
	e->reason = dup_opt(m, "reason");

	o = astra_json_get(m, "kernel");
	if (!astra_json_get_str(o, "name") || !*astra_json_get_str(o, "name"))
		return *why = "the manifest names no kernel", -1;
	e->kernel = dup_opt(o, "name");
	e->file = dup_opt(o, "file");
	if (astra_json_get(o, "line")) {
		if (get_int(o, "line", 0, UINT_MAX, &n) < 0)
			return *why = "the kernel's line is not a line number", -1;
		e->line = (unsigned)n;
	}

	o = astra_json_get(m, "inputs");
	for (i = 0; i < astra_json_len(o); i++) {
		const struct astra_json *in = astra_json_at(o, i);
		if (!astra_json_is_object(o) || !astra_json_str(in))
			return *why = "a key input is not a string", -1;
		astra_entry_add_input(e, astra_json_key(in), astra_json_str(in));
	}

	o = astra_json_get(m, "variant");
	if ((e->verdict == ASTRA_VERDICT_FASTER) != (vlen > 0))
		return *why = "the variant does not agree with the verdict", -1;
	if ((format >= 2) != (astra_json_get(m, "variants") != NULL || astra_json_get(m, "dispatch") != NULL))
		return *why = "a variant set is what format 2 adds, and only it", -1;
	if (format >= 2) {
		if (o)
			return *why = "an entry holds one variant or a variant set, not both", -1;
		if (fill_dispatch(e, m, variant, vlen, why) < 0)
			return -1;
	} else if (vlen) {
		if (get_int(o, "bytes", 0, LLONG_MAX, &n) < 0 || (unsigned long long)n != vlen)
			return *why = "the variant's length is not the manifest's", -1;
		astra_checksum(variant, vlen, sum);
		if (!astra_json_get_str(o, "checksum") || strcmp(sum, astra_json_get_str(o, "checksum")))
			return *why = "the variant's checksum is not the manifest's", -1;
		astra_entry_set_variant(e, variant, vlen);
		e->origin = dup_opt(o, "origin");
	} else if (o) {
		return *why = "a variant is described but absent", -1;
	}
	e->speedup = finite_num(m, "speedup", &bad);

	a = astra_json_get(m, "timings");
	for (i = 0; i < astra_json_len(a) && astra_json_is_array(a); i++) {
		const struct astra_json *t = astra_json_at(a, i);
		double bu = finite_num(t, "baseline_us", &bad), bs = finite_num(t, "baseline_spread", &bad);
		double vu = finite_num(t, "variant_us", &bad), vs = finite_num(t, "variant_spread", &bad);
		astra_entry_add_timing(e, astra_json_get_str(t, "shape"), bu, bs, vu, vs);
	}
	a = astra_json_get(m, "shapes_tested");
	for (i = 0; i < astra_json_len(a) && astra_json_is_array(a); i++) {
		const char *s = astra_json_str(astra_json_at(a, i));
		if (!s)
			return *why = "a tested shape is not a string", -1;
		astra_entry_add_shape(e, s);
	}
	a = astra_json_get(m, "seeds");
	for (i = 0; i < astra_json_len(a) && astra_json_is_array(a); i++) {
		double v = astra_json_num(astra_json_at(a, i), -1);
		if (!(v >= 0 && v <= 9007199254740992.0))
			return *why = "a seed is not a whole number", -1;
		astra_entry_add_seed(e, (long long)v);
	}

	o = astra_json_get(m, "device");
	e->device = dup_opt(o, "name");
	e->driver = dup_opt(o, "driver");
	e->nvcc_version = dup_opt(astra_json_get(m, "toolchain"), "nvcc");
	o = astra_json_get(m, "optimizer");
	e->optimizer = dup_opt(o, "name");
	e->model = dup_opt(o, "model");
	e->seconds = finite_num(m, "seconds", &bad);
	if (astra_json_get(m, "created")) {
		if (get_int(m, "created", 0, LLONG_MAX / 2, &n) < 0)
			return *why = "the creation time is not a time", -1;
		e->created = n;
	}
	o = astra_json_get(m, "transcript");
	if (o) {
		if (!astra_json_get_str(o, "checksum") || get_int(o, "bytes", 0, LLONG_MAX / 2, &n) < 0)
			return *why = "the transcript is described badly", -1;
		e->transcript_checksum = dup_opt(o, "checksum");
		e->transcript_len = n;
	}
	o = astra_json_get(m, "extra");
	if (astra_json_is_object(o))
		e->extra = astra_json_dup(o);
	if (bad)
		return *why = "a number in the manifest is not a finite number", -1;
	return 0;
}

enum astra_decode astra_entry_decode(const char *data, size_t len, const char *key, int cc,
				     struct astra_entry *e, struct astra_json **manifest_out,
				     const char **why)
{
	const char *p = data, *end = data + len, *body;
	unsigned long long version, mlen, vlen;
	char sum[25];
	struct astra_json *m;
	size_t hlen;

	astra_entry_init(e);
	if (manifest_out)
		*manifest_out = NULL;
	if (expect(&p, end, ASTRA_ENTRY_MAGIC) < 0)
		return *why = "not an astra-cc entry (bad magic)", ASTRA_DECODE_CORRUPT;
	if (parse_size(&p, end, &version) < 0 || expect(&p, end, " ") < 0)
		return *why = "the header has no format version", ASTRA_DECODE_CORRUPT;
	if (version < ASTRA_ENTRY_FORMAT_OLDEST || version > ASTRA_ENTRY_FORMAT)
		return *why = "the entry has an unknown format version", ASTRA_DECODE_UNKNOWN;
	if (expect(&p, end, "xxh3-64:") < 0 || end - p < 16)
		return *why = "the header has no checksum", ASTRA_DECODE_CORRUPT;
	memcpy(sum, p - 8, 24);
	sum[24] = '\0';
	p += 16;
	if (expect(&p, end, " ") < 0 || parse_size(&p, end, &mlen) < 0 || expect(&p, end, " ") < 0 ||
	    parse_size(&p, end, &vlen) < 0 || expect(&p, end, "\n") < 0)
		return *why = "the header is malformed", ASTRA_DECODE_CORRUPT;
	hlen = (size_t)(p - data);
	body = p;
	if (mlen > len || vlen > len || hlen + mlen + vlen != len)
		return *why = "the entry's length is not the header's (truncated?)", ASTRA_DECODE_CORRUPT;
	{
		char actual[25];
		astra_checksum(body, (size_t)(mlen + vlen), actual);
		if (strcmp(actual, sum))
			return *why = "the entry's checksum does not match", ASTRA_DECODE_CORRUPT;
	}
	m = astra_json_parse(body, (size_t)mlen);
	if (!m)
		return *why = "the manifest is not valid JSON", ASTRA_DECODE_CORRUPT;
	if (fill(e, m, body + mlen, (size_t)vlen, key, cc, (int)version, why) < 0) {
		astra_json_free(m);
		astra_entry_release(e);
		return ASTRA_DECODE_CORRUPT;
	}
	if (manifest_out)
		*manifest_out = m;
	else
		astra_json_free(m);
	return ASTRA_DECODE_OK;
}
