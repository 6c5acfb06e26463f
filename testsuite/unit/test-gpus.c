/*
 * Unit tests for which GPU runs what (agents/gpus.c) and the GPU list
 * (verify/gpu.c) with a stand-in nvidia-smi: --gpus selection by index,
 * UUID and UUID prefix, errors named; CUDA_VISIBLE_DEVICES filtering and
 * order; least-busy placement; the worker's environment and lock names.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/gpus.h"
#include "lib/util.h"
#include "verify/gpu.h"
#include "testsuite/unit/unit.h"

static struct astra_gpu gpu(int index, const char *uuid, int cc)
{
	struct astra_gpu g;
	memset(&g, 0, sizeof(g));
	g.present = 1;
	g.index = index;
	g.cc = cc;
	snprintf(g.uuid, sizeof(g.uuid), "%s", uuid);
	snprintf(g.name, sizeof(g.name), "NVIDIA H100 80GB HBM3");
	return g;
}

static void test_select(void)
{
	struct astra_gpu all[3], out[3];
	char *why = NULL;
	all[0] = gpu(0, "GPU-aaaa1111-0000-0000-0000-000000000000", 90);
	all[1] = gpu(1, "GPU-bbbb2222-0000-0000-0000-000000000000", 90);
	all[2] = gpu(2, "GPU-aaaa3333-0000-0000-0000-000000000000", 90);

	CHECK_INT(astra_gpus_select(all, 3, NULL, out, &why), 3);
	CHECK_INT(astra_gpus_select(all, 3, "all", out, &why), 3);
	CHECK_INT(out[2].index, 2);
	CHECK_INT(astra_gpus_select(all, 3, "2,0", out, &why), 2);
	CHECK_INT(out[0].index, 2);
	CHECK_INT(out[1].index, 0);
	CHECK_INT(astra_gpus_select(all, 3, "GPU-bbbb", out, &why), 1);
	CHECK_INT(out[0].index, 1);
	CHECK_INT(astra_gpus_select(all, 3, "GPU-aaaa3333-0000-0000-0000-000000000000,1", out, &why), 2);
	CHECK_INT(out[0].index, 2);

	CHECK_INT(astra_gpus_select(all, 3, "3", out, &why), -1);
	CHECK_STR(why, "--gpus: no GPU 3 here (nvidia-smi -L lists them)");
	free(why);
	CHECK_INT(astra_gpus_select(all, 3, "GPU-aaaa", out, &why), -1);
	CHECK_STR(why, "--gpus: GPU-aaaa names more than one GPU");
	free(why);
	CHECK_INT(astra_gpus_select(all, 3, "1,GPU-bbbb2222", out, &why), -1);
	CHECK_STR(why, "--gpus: GPU-bbbb2222 names a GPU already in the list");
	free(why);
	CHECK_INT(astra_gpus_select(all, 3, ",", out, &why), -1);
	CHECK_STR(why, "--gpus: the list names no GPU");
	free(why);
	CHECK_INT(astra_gpus_select(all, 3, "x1", out, &why), -1);
	free(why);
}

static void test_pick(void)
{
	int busy[3] = { 0, 0, 0 };
	size_t i, order[6];
	/* Six workers over three GPUs: round robin, two each. */
	for (i = 0; i < 6; i++) {
		order[i] = astra_gpus_pick(busy, 3);
		busy[order[i]]++;
	}
	CHECK_INT(order[0], 0);
	CHECK_INT(order[1], 1);
	CHECK_INT(order[2], 2);
	CHECK_INT(order[3], 0);
	CHECK_INT(busy[0], 2);
	CHECK_INT(busy[1], 2);
	CHECK_INT(busy[2], 2);
	/* A worker on GPU 1 finishes: the next goes there. */
	busy[1]--;
	CHECK_INT(astra_gpus_pick(busy, 3), 1);
}

static void test_env(void)
{
	struct astra_gpu g = gpu(1, "GPU-bbbb2222-0000-0000-0000-000000000000", 90), h = gpu(3, "", 90);
	char *env[2], *name;
	CHECK_INT(astra_gpus_env(&g, "/c", env), 2);
	CHECK_STR(env[0], "CUDA_VISIBLE_DEVICES=GPU-bbbb2222-0000-0000-0000-000000000000");
	CHECK_STR(env[1], "ASTRA_CC_GPU_LOCK=/c/gpu-GPU-bbbb2222-0000-0000-0000-000000000000.lock");
	free(env[0]);
	free(env[1]);
	CHECK_INT(astra_gpus_env(&h, "/c", env), 2);
	CHECK_STR(env[0], "CUDA_VISIBLE_DEVICES=3");
	CHECK_STR(env[1], "ASTRA_CC_GPU_LOCK=/c/gpu.lock");
	free(env[0]);
	free(env[1]);
	snprintf(h.uuid, sizeof(h.uuid), "GPU-../../etc");
	name = astra_gpu_lock_name(&h);
	CHECK_STR(name, "gpu.lock");
	free(name);
}

/* The list from a stand-in nvidia-smi, filtered by CUDA_VISIBLE_DEVICES. */
static void test_list(void)
{
	char dir[] = "/tmp/astra-test-gpus-XXXXXX";
	char *smi, *query, *nvcc, *why;
	struct astra_gpu *v = NULL;
	size_t n = 0;
	char reason[256];
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	smi = xasprintf("%s/nvidia-smi", dir);
	query = xasprintf("%s/__nvcc_device_query", dir);
	nvcc = xasprintf("%s/nvcc", dir);
	f = fopen(smi, "w");
	fputs("#!/bin/sh\n"
	      "echo '0, GPU-aaaa1111-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, 9.0, 580.1'\n"
	      "echo '1, GPU-bbbb2222-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, 9.0, 580.1'\n"
	      "echo '2, GPU-cccc3333-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, 9.0, 580.1'\n", f);
	fclose(f);
	f = fopen(query, "w");
	fputs("#!/bin/sh\necho 90\n", f);
	fclose(f);
	chmod(smi, 0755);
	chmod(query, 0755);
	setenv("ASTRA_CC_NVIDIA_SMI", smi, 1);
	unsetenv("ASTRA_CC_NO_GPU");

	/* Each call re-reads: the probe's memory is per nvcc, so use a new name each time. */
	unsetenv("CUDA_VISIBLE_DEVICES");
	astra_gpu_list(nvcc, &v, &n, reason, sizeof(reason));
	CHECK_INT(n, 3);
	CHECK(n == 3 && v[2].index == 2 && v[2].cc == 90 && !strcmp(v[1].uuid, "GPU-bbbb2222-0000-0000-0000-000000000000"));
	free(v);

	setenv("CUDA_VISIBLE_DEVICES", "2,GPU-aaaa", 1);
	why = xasprintf("%s/./nvcc", dir);
	astra_gpu_list(why, &v, &n, reason, sizeof(reason));
	CHECK_INT(n, 2);
	CHECK(n == 2 && v[0].index == 2 && v[1].index == 0);
	free(v);
	free(why);

	/* As CUDA reads it: the list ends at the first entry that names nothing. */
	setenv("CUDA_VISIBLE_DEVICES", "1,7,0", 1);
	why = xasprintf("%s/././nvcc", dir);
	astra_gpu_list(why, &v, &n, reason, sizeof(reason));
	CHECK_INT(n, 1);
	CHECK(n == 1 && v[0].index == 1);
	free(v);
	free(why);

	setenv("ASTRA_CC_NO_GPU", "1", 1);
	why = xasprintf("%s/./././nvcc", dir);
	astra_gpu_list(why, &v, &n, reason, sizeof(reason));
	CHECK_INT(n, 0);
	CHECK(strstr(reason, "ASTRA_CC_NO_GPU") != NULL);
	free(v);
	free(why);
	unsetenv("ASTRA_CC_NO_GPU");
	unsetenv("CUDA_VISIBLE_DEVICES");

	unlink(smi);
	unlink(query);
	rmdir(dir);
	free(smi);
	free(query);
	free(nvcc);
}

int main(void)
{
	test_select();
	test_pick();
	test_env();
	test_list();
	return unit_done();
}
