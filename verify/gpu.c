/*
 * gpu.c - the GPU probe and the list of GPUs (see gpu.h).
 *
 * Separate from the verifier's run logic because three layers ask it and
 * must get the same answer; there used to be two probes, of which only one
 * honoured ASTRA_CC_NO_GPU.
 *
 * nvidia-smi numbers GPUs in PCI order and ignores CUDA_VISIBLE_DEVICES;
 * CUDA numbers the visible ones in their CUDA_VISIBLE_DEVICES order (by
 * index or UUID).  The list maps one onto the other, and warmup pins each
 * worker by UUID, so that "GPU 1" means the same card to nvidia-smi, to
 * the lock file and to the test program.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/run.h"
#include "lib/util.h"
#include "verify/gpu.h"

/* nvcc's helper for -arch=native prints "90" (or "90,80"); 0 when it cannot tell. */
static int device_query(const char *nvcc, char *why, size_t whylen)
{
	struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
	struct astra_run_opts ro = { 0 };
	const char *slash = nvcc ? strrchr(nvcc, '/') : NULL;
	char *q = slash ? xasprintf("%.*s/__nvcc_device_query", (int)(slash - nvcc), nvcc) : NULL;
	int cc = -1;

	if (q && access(q, X_OK) == 0) {
		char *argv[] = { q, NULL };
		ro.out = &out;
		ro.err = &err;
		ro.timeout = 60;
		if (astra_run(argv, &ro) == 0) {
			cc = atoi(out.buf);
		} else {
			astra_buf_rtrim(&err);
			snprintf(why, whylen, "no usable GPU (%s)", err.len ? err.buf : "device query failed");
			cc = 0;
		}
	}
	free(q);
	astra_buf_release(&out);
	astra_buf_release(&err);
	return cc; /* -1: no device query here */
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * nvidia-smi's list: index, uuid, name, compute capability, driver, one
 * GPU a line.  Returns the number of GPUs (*out malloc'd), or 0.
 */
static size_t smi_list(struct astra_gpu **out)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_run_opts ro = { 0 };
	char *argv[] = { NULL, "--query-gpu=index,uuid,name,compute_cap,driver_version", "--format=csv,noheader",
			 NULL };
	const char *env = astra_getenv("ASTRA_CC_NVIDIA_SMI");
	char *path = env ? xstrdup(env) : astra_which("nvidia-smi");
	size_t n = 0, alloc = 0;
	char *line, *save = NULL;

	*out = NULL;
	if (!path)
		return 0;
	argv[0] = path;
	ro.out = &b;
	ro.quiet = 1;
	ro.timeout = 30;
	if (astra_run(argv, &ro) == 0 && b.len) {
		for (line = strtok_r(b.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f[5];
			int k;
			struct astra_gpu g;
			f[0] = line;
			for (k = 1; k < 5; k++) {
				f[k] = strchr(f[k - 1], ',');
				if (!f[k])
					break;
				*f[k]++ = '\0';
			}
			if (k < 5)
				continue;
			memset(&g, 0, sizeof(g));
			g.index = atoi(trim(f[0]));
			snprintf(g.uuid, sizeof(g.uuid), "%s", trim(f[1]));
			snprintf(g.name, sizeof(g.name), "%s", trim(f[2]));
			g.cc = (int)lround(strtod(trim(f[3]), NULL) * 10);
			snprintf(g.driver, sizeof(g.driver), "%s", trim(f[4]));
			if (g.cc <= 0)
				continue;
			g.present = 1;
			ALLOC_GROW(*out, n + 1, alloc);
			(*out)[n++] = g;
		}
	}
	free(path);
	astra_buf_release(&b);
	return n;
}

/*
 * Keep the GPUs that CUDA_VISIBLE_DEVICES names, in its order: indices,
 * UUIDs or UUID prefixes ("GPU-8932f937"), as CUDA reads it (the list
 * ends at the first entry that names nothing).  Unset: all.
 */
static size_t visible(struct astra_gpu *v, size_t n)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	struct astra_gpu *keep;
	size_t nk = 0, i;
	char *copy, *item, *save = NULL;

	if (!cvd)
		return n;
	keep = xcalloc(n ? n : 1, sizeof(*keep));
	copy = xstrdup(cvd);
	for (item = strtok_r(copy, ",", &save); item && nk < n; item = strtok_r(NULL, ",", &save)) {
		char *t = trim(item), *end;
		long idx = strtol(t, &end, 10);
		size_t found = n;
		for (i = 0; i < n && found == n; i++) {
			if (*t && !*end && idx >= 0 && v[i].index == idx)
				found = i;
			else if (astra_starts_with(t, "GPU-") && astra_starts_with(v[i].uuid, t))
				found = i;
		}
		if (found == n)
			break;
		keep[nk++] = v[found];
	}
	free(copy);
	memcpy(v, keep, nk * sizeof(*v));
	free(keep);
	return nk;
}

static struct astra_gpu memo;
static char *memo_nvcc;
static int have_memo;

int astra_gpu_probe(const char *nvcc, struct astra_gpu *g)
{
	int cc;

	if (have_memo && (!memo_nvcc || !strcmp(memo_nvcc, nvcc ? nvcc : ""))) {
		*g = memo;
		return g->present;
	}
	memset(g, 0, sizeof(*g));
	g->index = -1;
	if (astra_getenv("ASTRA_CC_NO_GPU")) {
		snprintf(g->why, sizeof(g->why), "no GPU (ASTRA_CC_NO_GPU is set)");
	} else {
		struct astra_gpu *list;
		size_t n = smi_list(&list);
		int smi_ok;
		n = visible(list, n);
		smi_ok = n > 0;
		if (smi_ok)
			*g = list[0];
		free(list);
		g->present = 0;
		cc = device_query(nvcc, g->why, sizeof(g->why));
		if (cc > 0)
			g->cc = cc;
		else if (cc == 0)
			g->cc = 0;
		g->present = g->cc > 0 && (cc > 0 || smi_ok);
		if (!g->present && !g->why[0])
			snprintf(g->why, sizeof(g->why), "no usable GPU (no device query tool and no nvidia-smi)");
	}
	memo = *g;
	free(memo_nvcc);
	memo_nvcc = xstrdup(nvcc ? nvcc : "");
	have_memo = 1;
	return g->present;
}

void astra_gpu_use(const struct astra_gpu *g)
{
	memo = *g;
	free(memo_nvcc);
	memo_nvcc = NULL; /* whatever nvcc asks */
	have_memo = 1;
}

int astra_gpu_list(const char *nvcc, struct astra_gpu **out, size_t *n, char *why, size_t whylen)
{
	struct astra_gpu first;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!astra_gpu_probe(nvcc, &first)) {
		snprintf(why, whylen, "%s", first.why);
		return 0;
	}
	*n = smi_list(out);
	*n = visible(*out, *n);
	if (!*n) {
		/* A GPU that nvidia-smi does not list (a container without it): just that one. */
		free(*out);
		*out = xmalloc(sizeof(**out));
		(*out)[0] = first;
		*n = 1;
	}
	for (i = 0; i < *n; i++) {
		(*out)[i].present = 1;
		/* The device query knows the architecture best when they disagree on the first. */
		if (i == 0 && first.cc > 0)
			(*out)[i].cc = first.cc;
	}
	return 0;
}

char *astra_gpu_lock_name(const struct astra_gpu *g)
{
	const char *u = g ? g->uuid : "";
	size_t i;
	if (!*u)
		return xstrdup("gpu.lock");
	/* A file name: keep [A-Za-z0-9-] of the UUID. */
	for (i = 0; u[i]; i++)
		if (!isalnum((unsigned char)u[i]) && u[i] != '-')
			return xstrdup("gpu.lock");
	return xasprintf("gpu-%s.lock", u);
}
