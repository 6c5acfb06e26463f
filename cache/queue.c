/*
 * queue.c - the warmup queue (see queue.h).
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "astra-cc/json.h"
#include "astra-cc/log.h"
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

static char *item_path(struct astra_cache *c, const char *key, int cc)
{
	return xasprintf("%s/queue/%s-%d.json", astra_cache_dir(c), key, cc);
}

int astra_cache_queue_add(struct astra_cache *c, struct astra_warmup_item *it)
{
	struct astra_json *j, *a;
	char *text, *path;
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
	path = item_path(c, it->key, it->cc);
	ret = astra_fsio_write_atomic(path, text, strlen(text));
	if (ret < 0) {
		warning("cannot queue %s for warmup in %s: %s", it->kernel, path, strerror(errno));
		astra_fsio_count(errno);
	} else {
		astra_stats_inc(ASTRA_STAT_QUEUED);
		astra_trace(ASTRA_TRACE_CACHE, "queued %s (%s sm_%d) for warmup", it->kernel, it->key, it->cc);
	}
	free(text);
	free(path);
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

int astra_cache_queue_list(struct astra_cache *c, struct astra_warmup_item **items, size_t *nr)
{
	char *dir = xasprintf("%s/queue", astra_cache_dir(c));
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t alloc = 0;

	*items = NULL;
	*nr = 0;
	if (!d) {
		int err = errno;
		free(dir);
		return err == ENOENT ? 0 : -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct astra_buf b = ASTRA_BUF_INIT;
		struct astra_warmup_item it;
		char *path;
		if (!astra_ends_with(de->d_name, ".json") || astra_fsio_is_temp(de->d_name))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		astra_warmup_item_init(&it);
		if (astra_buf_read_file(&b, path, 1 << 20) < 0) {
			/* Removed by a concurrent warmup since readdir: fine. */
			if (errno != ENOENT)
				warning("cannot read the warmup queue item %s: %s", path, strerror(errno));
		} else if (parse_item(b.buf, b.len, &it) == 0) {
			ALLOC_GROW(*items, *nr + 1, alloc);
			(*items)[(*nr)++] = it;
		} else {
			warning("removing a bad warmup queue item %s", path);
			astra_warmup_item_release(&it);
			unlink(path);
		}
		astra_buf_release(&b);
		free(path);
	}
	closedir(d);
	free(dir);
	if (*nr)
		qsort(*items, *nr, sizeof(**items), by_queued);
	return 0;
}

long long astra_cache_queue_length(struct astra_cache *c)
{
	char *dir = xasprintf("%s/queue", astra_cache_dir(c));
	DIR *d = opendir(dir);
	struct dirent *de;
	long long n = 0;
	free(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += astra_ends_with(de->d_name, ".json") && !astra_fsio_is_temp(de->d_name);
	closedir(d);
	return n;
}

int astra_cache_queue_remove(struct astra_cache *c, const char *key, int cc)
{
	char *path;
	int r;
	if (!astra_key_ok(key))
		return -1;
	path = item_path(c, key, cc);
	r = unlink(path);
	free(path);
	return r < 0 && errno != ENOENT ? -1 : 0;
}
