/*
 * queue.c - the warmup queue (see queue.h).
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/log.h"
#include "cache/fsio.h"
#include "cache/queue.h"
#include "cache/stats.h"

void astra_warmup_item_init(struct astra_warmup_item *it)
{
	memset(it, 0, sizeof(*it));
	astra_vec_init(&it->argv);
}

void astra_warmup_item_release(struct astra_warmup_item *it)
{
	free(it->key);
	free(it->kernel);
	free(it->source);
	free(it->cwd);
	astra_vec_clear(&it->argv);
	astra_warmup_item_init(it);
}

void astra_warmup_items_free(struct astra_warmup_item *items, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++)
		astra_warmup_item_release(&items[i]);
	free(items);
}

static char *item_name(const char *key, int cc)
{
	return astra_cache_object_name(key, cc, ASTRA_OBJ_QUEUE);
}

int astra_cache_queue_add(struct astra_cache *c, struct astra_warmup_item *it)
{
	struct astra_storage *s = astra_cache_local(c);
	struct astra_json *j, *a;
	char *text, *name;
	size_t i;
	int ret;

	if (!astra_key_ok(it->key) || it->cc <= 0 || !it->kernel)
		return error("cannot queue a kernel without a key, architecture and name");
	if (!it->queued)
		it->queued = astra_time();
	j = astra_json_new_object();
	astra_json_set_num(j, "format", ASTRA_QUEUE_FORMAT);
	astra_json_set_str(j, "key", it->key);
	astra_json_set_num(j, "cc", it->cc);
	astra_json_set_str(j, "kernel", it->kernel);
	astra_json_set_str(j, "source", it->source);
	astra_json_set_str(j, "cwd", it->cwd);
	a = astra_json_set_array(j, "argv");
	for (i = 0; i < it->argv.nr; i++)
		astra_json_push_str(a, it->argv.v[i]);
	astra_json_set_num(j, "queued", (double)it->queued);
	text = astra_json_print(j, 1);
	astra_json_free(j);
	name = item_name(it->key, it->cc);
	ret = s->ops->put(s, name, text, strlen(text));
	if (ret < 0) {
		warning("cannot queue %s for warmup in %s: %s", it->kernel, s->url, strerror(errno));
		astra_fsio_count(errno);
	} else {
		astra_stats_inc(ASTRA_STAT_QUEUED);
		astra_trace(ASTRA_TRACE_CACHE, "queued %s (%s sm_%d) for warmup", it->kernel, it->key, it->cc);
	}
	free(text);
	free(name);
	return ret;
}

static int parse_item(const char *text, size_t len, struct astra_warmup_item *it)
{
	struct astra_json *j = astra_json_parse(text, len), *a;
	const char *key = astra_json_get_str(j, "key");
	double cc = astra_json_get_num(j, "cc", 0);
	size_t i;
	int ret = -1;

	if (!j || astra_json_get_num(j, "format", 0) != ASTRA_QUEUE_FORMAT || !astra_key_ok(key) ||
	    !(cc >= 1 && cc <= 9999) || !astra_json_get_str(j, "kernel"))
		goto out;
	it->key = xstrdup(key);
	it->cc = (int)cc;
	it->kernel = xstrdup(astra_json_get_str(j, "kernel"));
	if (astra_json_get_str(j, "source"))
		it->source = xstrdup(astra_json_get_str(j, "source"));
	if (astra_json_get_str(j, "cwd"))
		it->cwd = xstrdup(astra_json_get_str(j, "cwd"));
	a = astra_json_get(j, "argv");
	for (i = 0; i < astra_json_len(a); i++) {
		const char *s = astra_json_str(astra_json_at(a, i));
		if (!s)
			goto out;
		astra_vec_push(&it->argv, s);
	}
	it->queued = (long long)astra_json_get_num(j, "queued", 0);
	ret = 0;
out:
	astra_json_free(j);
	return ret;
}

static int by_queued(const void *a, const void *b)
{
	const struct astra_warmup_item *x = a, *y = b;
	if (x->queued != y->queued)
		return x->queued < y->queued ? -1 : 1;
	return strcmp(x->key, y->key);
}

struct listing {
	struct astra_storage *s;
	struct astra_warmup_item *items;
	size_t nr, alloc;
	long long count;
	int count_only;
};

static int visit(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct listing *l = data;
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_warmup_item it;
	char key[33];
	int cc, r;
	(void)st;
	if (astra_cache_parse_name(name, key, &cc) != ASTRA_OBJ_QUEUE)
		return 0;
	if (l->count_only) {
		l->count++;
		return 0;
	}
	astra_warmup_item_init(&it);
	{
		struct astra_storage_stat ost;
		memset(&ost, 0, sizeof(ost));
		r = l->s->ops->get(l->s, name, &b, &ost);
		/* An item's argv is a command warmup runs: someone else's is not queued work of ours. */
		if (r > 0 && !astra_cache_trusted(l->s, name, &ost)) {
			astra_buf_release(&b);
			return 0;
		}
	}
	if (r < 0) {
		warning("cannot read the warmup queue item %s: %s", name, strerror(errno));
	} else if (r == 0) {
		/* Removed by a concurrent warmup since the listing: fine. */
	} else if (parse_item(b.buf, b.len, &it) == 0 && !strcmp(it.key, key) && it.cc == cc) {
		ALLOC_GROW(l->items, l->nr + 1, l->alloc);
		l->items[l->nr++] = it;
		astra_buf_release(&b);
		return 0;
	} else {
		warning("removing a bad warmup queue item %s", name);
		l->s->ops->remove(l->s, name);
	}
	astra_warmup_item_release(&it);
	astra_buf_release(&b);
	return 0;
}

int astra_cache_queue_list(struct astra_cache *c, struct astra_warmup_item **items, size_t *nr)
{
	struct listing l;
	memset(&l, 0, sizeof(l));
	l.s = astra_cache_local(c);
	*items = NULL;
	*nr = 0;
	if (l.s->ops->list(l.s, "", visit, &l) < 0) {
		astra_warmup_items_free(l.items, l.nr);
		return -1;
	}
	if (l.nr)
		qsort(l.items, l.nr, sizeof(*l.items), by_queued);
	*items = l.items;
	*nr = l.nr;
	return 0;
}

long long astra_cache_queue_length(struct astra_cache *c)
{
	struct listing l;
	memset(&l, 0, sizeof(l));
	l.s = astra_cache_local(c);
	l.count_only = 1;
	l.s->ops->list(l.s, "", visit, &l);
	return l.count;
}

int astra_cache_queue_remove(struct astra_cache *c, const char *key, int cc)
{
	struct astra_storage *s = astra_cache_local(c);
	char *name;
	int r;
	if (!astra_key_ok(key))
		return -1;
	name = item_name(key, cc);
	r = s->ops->remove(s, name);
	free(name);
	return r;
}
