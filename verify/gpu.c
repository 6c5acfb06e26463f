/*
 * gpu.c - the GPU probe (see gpu.h).
 *
 * Separate from the verifier's run logic because three layers ask it and
 * must get the same answer; there used to be two probes, of which only one
 * honoured ASTRA_CC_NO_GPU.
 */
#include "autoconfig.h"

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

/* nvidia-smi: name, compute capability, driver of GPU 0.  Returns 1 when it answered. */
static int smi(struct astra_gpu *g)
{
	struct astra_buf out = ASTRA_BUF_INIT;
	struct astra_run_opts ro = { 0 };
	char *argv[] = { NULL, "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader", NULL };
	char *path = astra_which("nvidia-smi");
	int ok = 0;

	if (!path)
		return 0;
	argv[0] = path;
	ro.out = &out;
	ro.quiet = 1;
	ro.timeout = 30;
	if (astra_run(argv, &ro) == 0 && out.len) {
		char *line = out.buf, *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		if (c1 && c2) {
			*c1 = *c2 = '\0';
			snprintf(g->name, sizeof(g->name), "%s", line);
			g->cc = (int)lround(strtod(c1 + 1, NULL) * 10);
			snprintf(g->driver, sizeof(g->driver), "%.*s", (int)strcspn(c2 + 2, "\n"), c2 + 2);
			ok = g->cc > 0;
		}
	}
	free(path);
	astra_buf_release(&out);
	return ok;
}

int astra_gpu_probe(const char *nvcc, struct astra_gpu *g)
{
	static struct astra_gpu memo;
	static char *memo_nvcc;
	static int have_memo;
	int cc;

	if (have_memo && !strcmp(memo_nvcc ? memo_nvcc : "", nvcc ? nvcc : "")) {
		*g = memo;
		return g->present;
	}
	memset(g, 0, sizeof(*g));
	if (astra_getenv("ASTRA_CC_NO_GPU")) {
		snprintf(g->why, sizeof(g->why), "no GPU (ASTRA_CC_NO_GPU is set)");
	} else {
		int smi_ok = smi(g);
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
