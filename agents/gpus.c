/*
 * gpus.c - which GPU runs what (see gpus.h).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/gpus.h"
#include "lib/buf.h"
#include "lib/util.h"

static int matches(const struct astra_gpu *g, const char *item)
{
	char *end;
	long idx;
	if (astra_starts_with(item, "GPU-"))
		return g->uuid[0] && astra_starts_with(g->uuid, item);
	idx = strtol(item, &end, 10);
	return *item && !*end && idx >= 0 && g->index == idx;
}

int astra_gpus_select(const struct astra_gpu *all, size_t n, const char *list, struct astra_gpu *out, char **why)
{
	size_t nout = 0, i;
	char *copy, *item, *save = NULL;

	*why = NULL;
	if (!list || !strcmp(list, "all")) {
		memcpy(out, all, n * sizeof(*out));
		return (int)n;
	}
	copy = xstrdup(list);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		size_t found = n, k;
		for (i = 0; i < n; i++) {
			if (!matches(&all[i], item))
				continue;
			if (found != n) {
				*why = xasprintf("--gpus: %s names more than one GPU", item);
				break;
			}
			found = i;
		}
		if (*why)
			break;
		if (found == n) {
			*why = xasprintf("--gpus: no GPU %s here (nvidia-smi -L lists them)", item);
			break;
		}
		for (k = 0; k < nout; k++)
			if (!strcmp(out[k].uuid, all[found].uuid) && out[k].index == all[found].index)
				break;
		if (k < nout) {
			*why = xasprintf("--gpus: %s names a GPU already in the list", item);
			break;
		}
		out[nout++] = all[found];
	}
	free(copy);
	if (!*why && !nout)
		*why = xstrdup("--gpus: the list names no GPU");
	return *why ? -1 : (int)nout;
}

size_t astra_gpus_pick(const int *busy, size_t n)
{
	size_t i, best = 0;
	for (i = 1; i < n; i++)
		if (busy[i] < busy[best])
			best = i;
	return best;
}

size_t astra_gpus_env(const struct astra_gpu *g, const char *dir, char **env)
{
	size_t k = 0;
	char *name = astra_gpu_lock_name(g);
	if (g->uuid[0])
		env[k++] = xasprintf("CUDA_VISIBLE_DEVICES=%s", g->uuid);
	else if (g->index >= 0)
		env[k++] = xasprintf("CUDA_VISIBLE_DEVICES=%d", g->index);
	env[k++] = xasprintf("ASTRA_CC_GPU_LOCK=%s/%s", dir, name);
	free(name);
	return k;
}

void astra_gpus_enter(const struct astra_gpu *g, const char *dir)
{
	char *env[2];
	size_t i, k = astra_gpus_env(g, dir, env);
	for (i = 0; i < k; i++) {
		char *eq = strchr(env[i], '=');
		*eq = '\0';
		setenv(env[i], eq + 1, 1);
		free(env[i]);
	}
	astra_gpu_use(g);
}

char *astra_gpus_describe(const struct astra_gpu *v, size_t n)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < n; i++) {
		if (i)
			astra_buf_adds(&b, ", ");
		if (v[i].index >= 0)
			astra_buf_addf(&b, "GPU %d", v[i].index);
		else
			astra_buf_adds(&b, "the GPU");
		if (!i || strcmp(v[i].name, v[i - 1].name))
			astra_buf_addf(&b, " (%s)", v[i].name[0] ? v[i].name : "unknown");
	}
	return astra_buf_detach(&b, NULL);
}
