/*
 * capture.c - captured launches: the format, merging, and the objects on
 * the local tier (see capture.h).
 *
 * A module of its own because two very different writers meet here: the
 * running program (generated C++, passes/capture-rt.cuh) writes records,
 * and astra-cc folds them into one object per kernel.  Keeping the schema,
 * the merge rule and the object names in one place is what keeps the two
 * in agreement.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "cache/capture.h"
#include "cache/manifest.h"
#include "cache/store.h"

/* Data objects nobody refers to are removed once this old (seconds). */
#define ORPHAN_AGE 3600

void astra_capture_init(struct astra_capture *c)
{
	memset(c, 0, sizeof(*c));
}

static void value_release(struct astra_capture_value *v)
{
	free(v->name);
	free(v->type);
	free(v->kind);
	free(v->text);
	free(v->hex);
}

static void shape_release(struct astra_capture_shape *s)
{
	size_t i;
	free(s->id);
	for (i = 0; i < s->nr_types; i++)
		value_release(&s->types[i]);
	free(s->types);
	for (i = 0; i < s->nr_scalars; i++)
		value_release(&s->scalars[i]);
	free(s->scalars);
	for (i = 0; i < s->nr_bufs; i++) {
		free(s->bufs[i].name);
		free(s->bufs[i].elem);
		free(s->bufs[i].data);
	}
	free(s->bufs);
	memset(s, 0, sizeof(*s));
}

void astra_capture_release(struct astra_capture *c)
{
	size_t i;
	free(c->kernel);
	for (i = 0; i < c->nr_shapes; i++)
		shape_release(&c->shapes[i]);
	free(c->shapes);
	astra_capture_init(c);
}

char *astra_capture_object_name(const char *key, int cc)
{
	return xasprintf("%s-%d.capture", key, cc);
}

long long astra_capture_shape_bytes(const struct astra_capture_shape *s)
{
	long long n = 0;
	size_t i;
	for (i = 0; i < s->nr_bufs; i++)
		if (s->bufs[i].count > 0 && s->bufs[i].elem_size > 0)
			n += s->bufs[i].count * s->bufs[i].elem_size;
	return n;
}

/* ------------------------------------------------------------- parsing */

static char *dup_str(const struct astra_json *o, const char *key)
{
	const char *s = astra_json_get_str(o, key);
	return s ? xstrdup(s) : NULL;
}

static int is_hex_text(const char *s, size_t min, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n >= min && n <= max;
}

static int parse_value(const struct astra_json *o, struct astra_capture_value *v, int scalar)
{
	memset(v, 0, sizeof(*v));
	v->index = scalar ? (int)astra_json_get_num(o, "index", -1) : -1;
	v->name = dup_str(o, "name");
	if (scalar) {
		v->type = dup_str(o, "type");
		v->kind = dup_str(o, "kind");
		v->text = dup_str(o, "text");
		v->hex = dup_str(o, "hex");
	} else {
		v->text = dup_str(o, "value");
	}
	if (!v->name || (scalar && (v->index < 0 || !v->kind)) || (v->hex && !is_hex_text(v->hex, 0, 4096)))
		return -1;
	return 0;
}

static int tri(const struct astra_json *o, const char *key)
{
	const struct astra_json *j = astra_json_get(o, key);
	if (!j || astra_json_is_null(j))
		return -1;
	return astra_json_bool(j, 0) ? 1 : 0;
}

static int parse_shape(const struct astra_json *o, const char *data_prefix, struct astra_capture_shape *s,
		       struct astra_buf *why)
{
	const struct astra_json *a;
	const char *bound;
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->id = dup_str(o, "id");
	if (!s->id || !is_hex_text(s->id, 16, 16))
		goto bad;
	s->launches = (long long)astra_json_get_num(o, "launches", -1);
	s->shmem = (long long)astra_json_get_num(o, "shmem", -1);
	s->checked = astra_json_get_bool(o, "checked", 0);
	if (s->launches < 0 || s->shmem < 0)
		goto bad;
	for (k = 0; k < 2; k++) {
		long long *dst = k ? s->block : s->grid;
		a = astra_json_get(o, k ? "block" : "grid");
		if (astra_json_len(a) != 3)
			goto bad;
		for (i = 0; i < 3; i++) {
			dst[i] = (long long)astra_json_num(astra_json_at(a, i), -1);
			if (dst[i] < 1)
				goto bad;
		}
	}
	a = astra_json_get(o, "types");
	s->nr_types = astra_json_len(a);
	s->types = xcalloc(s->nr_types ? s->nr_types : 1, sizeof(*s->types));
	for (i = 0; i < s->nr_types; i++)
		if (parse_value(astra_json_at(a, i), &s->types[i], 0) < 0)
			goto bad;
	a = astra_json_get(o, "scalars");
	s->nr_scalars = astra_json_len(a);
	s->scalars = xcalloc(s->nr_scalars ? s->nr_scalars : 1, sizeof(*s->scalars));
	for (i = 0; i < s->nr_scalars; i++)
		if (parse_value(astra_json_at(a, i), &s->scalars[i], 1) < 0)
			goto bad;
	a = astra_json_get(o, "buffers");
	s->nr_bufs = astra_json_len(a);
	s->bufs = xcalloc(s->nr_bufs ? s->nr_bufs : 1, sizeof(*s->bufs));
	for (i = 0; i < s->nr_bufs; i++) {
		const struct astra_json *b = astra_json_at(a, i);
		struct astra_capture_buffer *cb = &s->bufs[i];
		cb->index = (int)astra_json_get_num(b, "index", -1);
		cb->name = dup_str(b, "name");
		cb->elem = dup_str(b, "elem");
		cb->elem_size = (long long)astra_json_get_num(b, "elem_size", -1);
		cb->count = (long long)astra_json_get_num(b, "count", -1);
		cb->to_end = (long long)astra_json_get_num(b, "to_end", (double)cb->count);
		bound = astra_json_get_str(b, "bound");
		cb->bound = bound && !strcmp(bound, "argument") ? ASTRA_CAPTURE_BOUND_ARGUMENT
			    : bound && !strcmp(bound, "written") ? ASTRA_CAPTURE_BOUND_WRITTEN
								 : ASTRA_CAPTURE_BOUND_ALLOCATION;
		cb->null = astra_json_get_bool(b, "null", 0);
		cb->same_as = (int)astra_json_get_num(b, "same_as", cb->index);
		cb->written = tri(b, "written");
		cb->data = dup_str(b, "data");
		cb->data_bytes = (long long)astra_json_get_num(b, "data_bytes", 0);
		if (cb->index < 0 || !cb->name || cb->elem_size < 1 || cb->count < -1)
			goto bad;
		/* A data object's name becomes a path: it must be one of this kernel's. */
		if (cb->data && (!astra_starts_with(cb->data, data_prefix) || !astra_storage_name_ok(cb->data) ||
				 cb->data_bytes < 0)) {
			astra_buf_addf(why, "data object %s is not one of this capture's", cb->data);
			return -1;
		}
	}
	return 0;
bad:
	astra_buf_addf(why, "a malformed shape%s%s", s->id ? " " : "", s->id ? s->id : "");
	return -1;
}

int astra_capture_parse(const char *text, size_t len, struct astra_capture *out, struct astra_buf *why)
{
	struct astra_buf dummy = ASTRA_BUF_INIT;
	struct astra_json *j = astra_json_parse(text, len);
	const struct astra_json *a;
	const char *key;
	char *data_prefix = NULL;
	double cc;
	size_t i;
	int ret = -1;

	if (!why)
		why = &dummy;
	astra_capture_init(out);
	if (!astra_json_is_object(j)) {
		astra_buf_adds(why, "not a JSON object");
		goto out;
	}
	if (astra_json_get_num(j, "format", 0) != ASTRA_CAPTURE_FORMAT) {
		astra_buf_addf(why, "format %g, expected %d", astra_json_get_num(j, "format", 0), ASTRA_CAPTURE_FORMAT);
		goto out;
	}
	key = astra_json_get_str(j, "key");
	cc = astra_json_get_num(j, "cc", 0);
	out->kernel = dup_str(j, "kernel");
	if (!key || !astra_key_ok(key) || !(cc >= 1 && cc <= 9999) || !out->kernel) {
		astra_buf_adds(why, "no kernel, key or architecture");
		goto out;
	}
	memcpy(out->key, key, 33);
	out->cc = (int)cc;
	out->launches = (long long)astra_json_get_num(j, "launches", 0);
	out->dropped = (long long)astra_json_get_num(j, "dropped", 0);
	out->failed = (long long)astra_json_get_num(j, "failed", 0);
	out->runs = (long long)astra_json_get_num(j, "runs", 1);
	data_prefix = xasprintf("%s-%d.capture-d", out->key, out->cc);
	a = astra_json_get(j, "shapes");
	if (a && !astra_json_is_array(a)) {
		astra_buf_adds(why, "shapes is not an array");
		goto out;
	}
	for (i = 0; i < astra_json_len(a); i++) {
		ALLOC_GROW(out->shapes, out->nr_shapes + 1, out->alloc_shapes);
		if (parse_shape(astra_json_at(a, i), data_prefix, &out->shapes[out->nr_shapes], why) < 0) {
			shape_release(&out->shapes[out->nr_shapes]);
			goto out;
		}
		out->nr_shapes++;
	}
	ret = 0;
out:
	if (ret)
		astra_capture_release(out);
	free(data_prefix);
	astra_json_free(j);
	astra_buf_release(&dummy);
	return ret;
}

/* ------------------------------------------------------------ printing */

static int by_launches(const void *a, const void *b)
{
	const struct astra_capture_shape *x = a, *y = b;
	if (x->launches != y->launches)
		return x->launches > y->launches ? -1 : 1;
	return strcmp(x->id, y->id);
}

static void set_str_or_null(struct astra_json *o, const char *key, const char *v)
{
	if (v)
		astra_json_set_str(o, key, v);
	else
		astra_json_set_null(o, key);
}

char *astra_capture_print(const struct astra_capture *c)
{
	struct astra_json *j = astra_json_new_object(), *shapes;
	struct astra_capture_shape *order = NULL;
	size_t i, k;
	char *text;

	astra_json_set_num(j, "format", ASTRA_CAPTURE_FORMAT);
	astra_json_set_str(j, "kernel", c->kernel ? c->kernel : "");
	astra_json_set_str(j, "key", c->key);
	astra_json_set_num(j, "cc", c->cc);
	astra_json_set_num(j, "launches", (double)c->launches);
	astra_json_set_num(j, "dropped", (double)c->dropped);
	astra_json_set_num(j, "failed", (double)c->failed);
	astra_json_set_num(j, "runs", (double)c->runs);
	shapes = astra_json_set_array(j, "shapes");
	if (c->nr_shapes) {
		order = xmalloc(c->nr_shapes * sizeof(*order));
		memcpy(order, c->shapes, c->nr_shapes * sizeof(*order));
		qsort(order, c->nr_shapes, sizeof(*order), by_launches);
	}
	for (i = 0; i < c->nr_shapes; i++) {
		const struct astra_capture_shape *s = &order[i];
		struct astra_json *o = astra_json_new_object(), *a;
		astra_json_set_str(o, "id", s->id);
		astra_json_set_num(o, "launches", (double)s->launches);
		a = astra_json_set_array(o, "types");
		for (k = 0; k < s->nr_types; k++) {
			struct astra_json *t = astra_json_new_object();
			astra_json_set_str(t, "name", s->types[k].name);
			set_str_or_null(t, "value", s->types[k].text);
			astra_json_push(a, t);
		}
		a = astra_json_set_array(o, "grid");
		for (k = 0; k < 3; k++)
			astra_json_push_num(a, (double)s->grid[k]);
		a = astra_json_set_array(o, "block");
		for (k = 0; k < 3; k++)
			astra_json_push_num(a, (double)s->block[k]);
		astra_json_set_num(o, "shmem", (double)s->shmem);
		astra_json_set_bool(o, "checked", s->checked);
		a = astra_json_set_array(o, "scalars");
		for (k = 0; k < s->nr_scalars; k++) {
			const struct astra_capture_value *v = &s->scalars[k];
			struct astra_json *t = astra_json_new_object();
			astra_json_set_num(t, "index", v->index);
			astra_json_set_str(t, "name", v->name);
			set_str_or_null(t, "type", v->type);
			astra_json_set_str(t, "kind", v->kind);
			set_str_or_null(t, "text", v->text);
			set_str_or_null(t, "hex", v->hex);
			astra_json_push(a, t);
		}
		a = astra_json_set_array(o, "buffers");
		for (k = 0; k < s->nr_bufs; k++) {
			const struct astra_capture_buffer *b = &s->bufs[k];
			struct astra_json *t = astra_json_new_object();
			astra_json_set_num(t, "index", b->index);
			astra_json_set_str(t, "name", b->name);
			set_str_or_null(t, "elem", b->elem);
			astra_json_set_num(t, "elem_size", (double)b->elem_size);
			astra_json_set_num(t, "count", (double)b->count);
			astra_json_set_num(t, "to_end", (double)b->to_end);
			astra_json_set_str(t, "bound", b->bound == ASTRA_CAPTURE_BOUND_ARGUMENT ? "argument"
						       : b->bound == ASTRA_CAPTURE_BOUND_WRITTEN ? "written"
												 : "allocation");
			astra_json_set_bool(t, "null", b->null);
			astra_json_set_num(t, "same_as", b->same_as);
			if (b->written < 0)
				astra_json_set_null(t, "written");
			else
				astra_json_set_bool(t, "written", b->written);
			set_str_or_null(t, "data", b->data);
			astra_json_set_num(t, "data_bytes", (double)b->data_bytes);
			astra_json_push(a, t);
		}
		astra_json_push(shapes, o);
	}
	free(order);
	text = astra_json_print(j, 1);
	astra_json_free(j);
	return text;
}

/* ------------------------------------------------------------- merging */

static struct astra_capture_shape *find_shape(struct astra_capture *c, const char *id)
{
	size_t i;
	for (i = 0; i < c->nr_shapes; i++)
		if (!strcmp(c->shapes[i].id, id))
			return &c->shapes[i];
	return NULL;
}

static void copy_value(struct astra_capture_value *d, const struct astra_capture_value *s)
{
	d->index = s->index;
	d->name = s->name ? xstrdup(s->name) : NULL;
	d->type = s->type ? xstrdup(s->type) : NULL;
	d->kind = s->kind ? xstrdup(s->kind) : NULL;
	d->text = s->text ? xstrdup(s->text) : NULL;
	d->hex = s->hex ? xstrdup(s->hex) : NULL;
}

static void copy_shape(struct astra_capture_shape *d, const struct astra_capture_shape *s)
{
	size_t i;
	*d = *s;
	d->id = xstrdup(s->id);
	d->types = xcalloc(s->nr_types ? s->nr_types : 1, sizeof(*d->types));
	for (i = 0; i < s->nr_types; i++)
		copy_value(&d->types[i], &s->types[i]);
	d->scalars = xcalloc(s->nr_scalars ? s->nr_scalars : 1, sizeof(*d->scalars));
	for (i = 0; i < s->nr_scalars; i++)
		copy_value(&d->scalars[i], &s->scalars[i]);
	d->bufs = xcalloc(s->nr_bufs ? s->nr_bufs : 1, sizeof(*d->bufs));
	for (i = 0; i < s->nr_bufs; i++) {
		d->bufs[i] = s->bufs[i];
		d->bufs[i].name = xstrdup(s->bufs[i].name);
		d->bufs[i].elem = s->bufs[i].elem ? xstrdup(s->bufs[i].elem) : NULL;
		d->bufs[i].data = s->bufs[i].data ? xstrdup(s->bufs[i].data) : NULL;
	}
}

/* What a second sighting of a shape adds: the written flags, a data object. */
static void merge_shape(struct astra_capture_shape *d, const struct astra_capture_shape *s)
{
	size_t i, k;
	d->launches += s->launches;
	for (i = 0; i < d->nr_bufs; i++) {
		struct astra_capture_buffer *db = &d->bufs[i];
		for (k = 0; k < s->nr_bufs; k++) {
			const struct astra_capture_buffer *sb = &s->bufs[k];
			if (sb->index != db->index)
				continue;
			/* Changed in any run: written.  Else unchanged if some run measured it. */
			if (sb->written == 1 || db->written == 1)
				db->written = 1;
			else if (sb->written == 0 || db->written == 0)
				db->written = 0;
			if (!db->data && sb->data) {
				db->data = xstrdup(sb->data);
				db->data_bytes = sb->data_bytes;
			}
		}
	}
	d->checked |= s->checked;
}

int astra_capture_merge(struct astra_capture *into, const struct astra_capture *from, size_t max_shapes)
{
	size_t i;
	if (into->kernel && (strcmp(into->kernel, from->kernel) || strcmp(into->key, from->key) || into->cc != from->cc))
		return -1;
	if (!into->kernel) {
		into->kernel = xstrdup(from->kernel);
		memcpy(into->key, from->key, 33);
		into->cc = from->cc;
	}
	into->launches += from->launches;
	into->dropped += from->dropped;
	into->failed += from->failed;
	into->runs += from->runs;
	for (i = 0; i < from->nr_shapes; i++) {
		struct astra_capture_shape *d = find_shape(into, from->shapes[i].id);
		if (d) {
			merge_shape(d, &from->shapes[i]);
		} else {
			ALLOC_GROW(into->shapes, into->nr_shapes + 1, into->alloc_shapes);
			copy_shape(&into->shapes[into->nr_shapes++], &from->shapes[i]);
		}
	}
	if (max_shapes && into->nr_shapes > max_shapes) {
		qsort(into->shapes, into->nr_shapes, sizeof(*into->shapes), by_launches);
		for (i = max_shapes; i < into->nr_shapes; i++) {
			into->dropped += into->shapes[i].launches;
			shape_release(&into->shapes[i]);
		}
		into->nr_shapes = max_shapes;
	}
	return 0;
}

/* ------------------------------------------------------- on the local tier */

char *astra_capture_prefix(struct astra_cache *cache, const char *key, int cc)
{
	struct astra_storage *s = astra_cache_local(cache);
	char *name = astra_capture_object_name(key, cc);
	char *path = s->ops->where(s, name);
	free(name);
	return path;
}

char *astra_capture_data_path(struct astra_cache *cache, const char *object)
{
	struct astra_storage *s = astra_cache_local(cache);
	return s->ops->where(s, object);
}

struct listing {
	char *merged;               /* "<key>-<cc>.capture" */
	size_t merged_len;
	int have_merged;
	struct astra_vec records, data;
	struct astra_vec data_old;  /* data objects older than ORPHAN_AGE */
	long long now;
};

static int visit(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct listing *l = data;
	if (strncmp(name, l->merged, l->merged_len))
		return 0;
	if (!name[l->merged_len]) {
		l->have_merged = 1;
	} else if (!strncmp(name + l->merged_len, "-r", 2)) {
		astra_vec_push(&l->records, name);
	} else if (!strncmp(name + l->merged_len, "-d", 2)) {
		astra_vec_push(&l->data, name);
		if (st->mtime / 1000000000LL < l->now - ORPHAN_AGE)
			astra_vec_push(&l->data_old, name);
	}
	return 0;
}

static int list_capture(struct astra_storage *s, const char *key, struct listing *l)
{
	astra_vec_clear(&l->records);
	astra_vec_clear(&l->data);
	astra_vec_clear(&l->data_old);
	l->have_merged = 0;
	l->now = astra_time();
	return s->ops->list(s, key, visit, l);
}

/* Read and parse one object; a bad one is removed.  1 ok, 0 absent or bad, -1 error. */
static int read_one(struct astra_storage *s, const char *name, const char *key, int cc,
		    struct astra_capture *out, int may_remove)
{
	struct astra_buf b = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_storage_stat st;
	int r;
	memset(&st, 0, sizeof(st));
	r = s->ops->get(s, name, &b, &st);
	if (r <= 0) {
		if (r < 0)
			warning("cannot read the capture object %s: %s", name, strerror(errno));
		astra_buf_release(&b);
		return r;
	}
	/* Its values become C++ in a test program: only from someone trusted (lib/trust.h). */
	if (!astra_cache_trusted(s, name, &st)) {
		astra_buf_release(&b);
		return 0;
	}
	if (astra_capture_parse(b.buf, b.len, out, &why) == 0 && (strcmp(out->key, key) || out->cc != cc)) {
		astra_buf_addf(&why, "it names %s-%d", out->key, out->cc);
		astra_capture_release(out);
	}
	if (why.len) {
		warning("%s a bad capture object %s: %s", may_remove ? "removing" : "ignoring", name, why.buf);
		if (may_remove)
			s->ops->remove(s, name);
		r = 0;
	}
	astra_buf_release(&b);
	astra_buf_release(&why);
	return r;
}

/* Is a data object referred to by a shape of c? */
static int referred(const struct astra_capture *c, const char *name)
{
	size_t i, k;
	for (i = 0; i < c->nr_shapes; i++)
		for (k = 0; k < c->shapes[i].nr_bufs; k++)
			if (c->shapes[i].bufs[k].data && !strcmp(c->shapes[i].bufs[k].data, name))
				return 1;
	return 0;
}

/* Forget data objects that are gone (a partial copy, removed by hand). */
static void check_data(struct astra_capture *c, const struct listing *l)
{
	size_t i, k;
	for (i = 0; i < c->nr_shapes; i++)
		for (k = 0; k < c->shapes[i].nr_bufs; k++) {
			struct astra_capture_buffer *b = &c->shapes[i].bufs[k];
			if (b->data && astra_vec_find(&l->data, b->data) < 0) {
				free(b->data);
				b->data = NULL;
				b->data_bytes = 0;
			}
		}
}

int astra_capture_present(struct astra_cache *cache, const char *key, int cc)
{
	struct listing l;
	int r;
	if (!astra_key_ok(key) || cc <= 0)
		return 0;
	memset(&l, 0, sizeof(l));
	l.merged = astra_capture_object_name(key, cc);
	l.merged_len = strlen(l.merged);
	r = list_capture(astra_cache_local(cache), key, &l) == 0 && (l.have_merged || l.records.nr);
	free(l.merged);
	astra_vec_clear(&l.records);
	astra_vec_clear(&l.data);
	astra_vec_clear(&l.data_old);
	return r;
}

int astra_capture_load(struct astra_cache *cache, const char *key, int cc, size_t max_shapes,
		       struct astra_capture *out)
{
	struct astra_storage *s = astra_cache_local(cache);
	struct astra_file_lock lk = ASTRA_FILE_LOCK_INIT;
	struct listing l;
	char *lockname = NULL;
	size_t i;
	int locked = 0, ret = -1, changed = 0;

	astra_capture_init(out);
	if (!astra_key_ok(key) || cc <= 0)
		return -1;
	memset(&l, 0, sizeof(l));
	l.merged = astra_capture_object_name(key, cc);
	l.merged_len = strlen(l.merged);
	if (list_capture(s, key, &l) < 0)
		goto out;
	if (!l.have_merged && !l.records.nr) {
		ret = 0;
		goto out;
	}
	if (l.records.nr) {
		/* Fold the records in under the lock, so that two readers do not count them twice. */
		lockname = xasprintf("%s.lock", l.merged);
		locked = astra_storage_file_lock(s, lockname, 30, &lk) == 1;
		if (locked && list_capture(s, key, &l) < 0)
			goto out;
	}
	if (l.have_merged && read_one(s, l.merged, key, cc, out, locked || !l.records.nr) < 0)
		goto out;
	if (!out->kernel)
		out->runs = 0;
	for (i = 0; i < l.records.nr; i++) {
		struct astra_capture rec;
		if (read_one(s, l.records.v[i], key, cc, &rec, locked) <= 0)
			continue;
		if (astra_capture_merge(out, &rec, max_shapes) < 0)
			warning("capture record %s is of another kernel (%s, not %s): ignored", l.records.v[i], rec.kernel,
				out->kernel);
		else
			changed = 1;
		astra_capture_release(&rec);
	}
	if (!out->kernel) {
		ret = 0;
		goto out;
	}
	if (max_shapes && out->nr_shapes > max_shapes) {
		struct astra_capture none;
		astra_capture_init(&none);
		none.kernel = out->kernel;
		memcpy(none.key, out->key, 33);
		none.cc = out->cc;
		astra_capture_merge(out, &none, max_shapes);
		changed = 1;
	}
	if (locked && changed) {
		char *text = astra_capture_print(out);
		if (s->ops->put(s, l.merged, text, strlen(text)) == 0) {
			for (i = 0; i < l.records.nr; i++)
				s->ops->remove(s, l.records.v[i]);
		} else {
			warning("cannot write the merged capture %s: %s", l.merged, strerror(errno));
		}
		free(text);
	}
	if (locked)
		for (i = 0; i < l.data_old.nr; i++)
			if (!referred(out, l.data_old.v[i]))
				s->ops->remove(s, l.data_old.v[i]);
	check_data(out, &l);
	astra_trace(ASTRA_TRACE_CACHE, "capture %s: %zu shapes, %lld launches, %lld runs", l.merged, out->nr_shapes,
		    out->launches, out->runs);
	ret = 1;
out:
	if (locked)
		astra_storage_file_unlock(&lk, 1);
	if (ret < 0)
		astra_capture_release(out);
	free(lockname);
	free(l.merged);
	astra_vec_clear(&l.records);
	astra_vec_clear(&l.data);
	astra_vec_clear(&l.data_old);
	return ret;
}
