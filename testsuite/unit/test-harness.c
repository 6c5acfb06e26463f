/*
 * Unit tests for verify/harness.c (generation) and verify/verify.c up to
 * the point a GPU is needed: the generated program compiles with nvcc, the
 * compiler's errors are given to the right candidate for the right reason,
 * and the compiled program's host-side self test passes.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "verify/harness.h"
#include "testsuite/unit/kernel-fixture.h"
#include "testsuite/unit/unit.h"

static const char tu_text[] =
	"#include <cuda_fp16.h>\n"
	"#define SCALE 2.0f\n"
	"__device__ float twice(float x) { return x * SCALE; }\n"
	"#pragma astra optimize\n"
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *__restrict__ x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tout[i] = (T)(twice((float)x[i]) * a);\n"
	"}\n"
	"int main() { scale<float><<<1, 1>>>(nullptr, nullptr, 1.0f, 0); return 0; }\n";

static void make_fixture(struct fixture *f)
{
	fx_init(f, "scale.cu", tu_text, "scale", "template");
	fx_template(f, "typename", "T");
	fx_param(f, "T *", "out");
	fx_param(f, "const T *__restrict__", "x");
	fx_param(f, "float", "a");
	fx_param(f, "int", "n");
	fx_types(f, "T", "float");
	fx_types(f, "T", "__half");
	fx_shape(f, "n=1000");
	fx_shape(f, "n=7");
	fx_shape(f, "n=1");
	fx_assign(&f->k.pragma.scalars, "a", "0.5f");
	fx_buffer(f, "out", "n", 1);
	fx_buffer(f, "x", "n", 0);
	fx_range(f, "x", "-4", "4");
	fx_launch(f, "(n + 255) / 256", "256");
}

static const char good[] =
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *x, float a, int n)\n"
	"{\n"
	"\tfor (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
	"\t\tout[i] = (T)(twice((float)x[i]) * a);\n"
	"}\n";

static const char own_geometry[] =
	"#pragma astra launch(grid=(n + 511) / 512, block=512)\n"
	"template <typename T>\n"
	"__global__ void __launch_bounds__(512) scale(T *out, const T *x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tout[i] = (T)(twice((float)x[i]) * a);\n"
	"}\n";

static const char changed_signature[] =
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *x, float a, long n)\n"
	"{\n"
	"\tif (threadIdx.x < n) out[threadIdx.x] = x[threadIdx.x];\n"
	"}\n";

static const char compile_error[] =
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *x, float a, int n)\n"
	"{\n"
	"\tout[0] = undefined_thing;\n"
	"}\n";

static const char bad_geometry[] =
	"#pragma astra launch(grid=rows_not_a_param, block=256)\n"
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *x, float a, int n)\n"
	"{\n"
	"\tout[0] = x[0];\n"
	"}\n";

static const char with_include[] =
	"#include <cstdio>\n"
	"template <typename T>\n"
	"__global__ void scale(T *out, const T *x, float a, int n) { }\n";

static void test_generate(void)
{
	struct fixture f;
	struct astra_harness h;
	struct astra_harness_cand c[2];
	struct astra_buf out = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;

	make_fixture(&f);
	memset(&h, 0, sizeof(h));
	memset(c, 0, sizeof(c));
	c[0].name = "good.cu";
	c[0].text = good;
	c[1].name = "own.cu";
	c[1].text = own_geometry;
	c[1].grid = "(n + 511) / 512";
	c[1].block = "512";
	h.kernel = &f.k;
	h.src_path = "scale.cu";
	h.src_text = f.tu.text;
	h.src_len = f.tu.len;
	h.cands = c;
	h.nr_cands = 2;
	CHECK_INT(astra_harness_generate(&h, &out, &why), 0);
	CHECK(strstr(out.buf, "#define main astra_tu_main_\n#line 1 \"scale.cu\"\n#include <cuda_fp16.h>") != NULL);
	/* The reference is the original text, cut right after the kernel. */
	CHECK(strstr(out.buf, "(T)(twice((float)x[i]) * a);\n}\n\n#undef main") != NULL);
	CHECK(strstr(out.buf, "int main() { scale<float>") == NULL);
	CHECK(strstr(out.buf, "namespace astra_cand_0 {\n#line 1 \"good.cu\"\n") != NULL);
	CHECK(strstr(out.buf, "#line 1 \"own.cu (geometry)\"\n\tdim3 astra_g = dim3((n + 511) / 512);") != NULL);
	CHECK(strstr(out.buf, "static_assert(std::is_same<decltype(&::scale<T>), decltype(&::astra_cand_1::scale<T>)>") != NULL);
	CHECK(strstr(out.buf, "using T = __half;") != NULL);
	CHECK(strstr(out.buf, "astra_c.add<T>(\"out\", (long long)(n), true, false);") != NULL);
	CHECK(strstr(out.buf, "astra_c.add<T>(\"x\", (long long)(n), false, true);") != NULL);
	CHECK(strstr(out.buf, "astra_c.range(\"x\", (double)(-4), (double)(4));") != NULL);
	CHECK(strstr(out.buf, "float a = (float)(0.5f);") != NULL);
	/* The scalar arguments, for the per-shape choice of variants. */
	CHECK(strstr(out.buf, "astra_c.dim(\"n\", n);") != NULL);
	CHECK(strstr(out.buf, "astra_c.dim(\"a\", a);") != NULL);
	CHECK(strstr(out.buf, "astra_c.dim(\"x\"") == NULL);
	CHECK(strstr(out.buf, "astra_c.label = \"T=__half n=7\";") != NULL);
	CHECK(strstr(out.buf, "::astra_rt::Program astra_p(3);") != NULL);
	CHECK(strstr(out.buf, "::astra_inst_1::astra_cases(astra_p);") != NULL);
	astra_buf_reset(&out);

	/* A source path that would close the header comment and inject code (the audit's). */
	h.src_path = "x*/ int astra_injected = system(\"id\"); /*\ny.cu";
	CHECK_INT(astra_harness_generate(&h, &out, &why), 0);
	/* The header comment ends where it should, not inside the path. */
	CHECK(strstr(out.buf, "See doc/verify.md. */") != NULL &&
	      strstr(out.buf, "*/") == strstr(out.buf, "See doc/verify.md. */") + strlen("See doc/verify.md. "));
	CHECK(strstr(out.buf, "of x* / int astra_injected = system(\"id\"); /* y.cu.\n") != NULL);
	/* ...and #line still names it exactly (escaped for a string literal). */
	CHECK(strstr(out.buf, "#line 1 \"x*/ int astra_injected = system(\\\"id\\\"); /*\\ny.cu\"\n") != NULL);
	h.src_path = "scale.cu";
	astra_buf_reset(&out);

	/* A pragma that cannot describe a test says why. */
	free(f.k.pragma.buffers[1].name);
	f.k.pragma.buffers[1].name = xstrdup("y");
	CHECK_INT(astra_harness_generate(&h, &out, &why), -1);
	CHECK(strstr(why.buf, "pointer parameter `x` has no size") != NULL);
	fixture_release(&f);

	/* A kernel inside namespaces: candidates go next to it. */
	fx_init(&f, "ns.cu", "namespace ops { namespace {\n__device__ int one() { return 1; }\n"
		"__global__ void k(int *o) { o[0] = one(); }\n} }\n", "k", "__global__ void k");
	fx_param(&f, "int *", "o");
	fx_shape(&f, "n=1");
	fx_buffer(&f, "o", "1", 1);
	fx_launch(&f, "1", "1");
	c[0].text = "__global__ void k(int *o) { o[0] = one(); }\n";
	h.kernel = &f.k;
	h.src_path = "ns.cu";
	h.src_text = f.tu.text;
	h.src_len = f.tu.len;
	h.nr_cands = 1;
	astra_buf_reset(&out);
	astra_buf_reset(&why);
	CHECK_INT(astra_harness_generate(&h, &out, &why), 0);
	CHECK(strstr(out.buf, "o[0] = one(); }\n}}\n#undef main") != NULL);
	CHECK(strstr(out.buf, "namespace ops { namespace  { \nnamespace astra_cand_0 {") != NULL);
	CHECK(strstr(out.buf, "::ops::k<<<astra_grid") != NULL);
	CHECK(strstr(out.buf, "::ops::astra_cand_0::k<<<astra_g") != NULL);
	fixture_release(&f);

	/*
	 * A kernel in a header: what the compile unit has before it comes
	 * first, each part under its own #line; a namespace or a conditional
	 * open around the #include is closed after the kernel too.
	 */
	{
		static const char tu[] = "#include \"helper.h\"\n#ifdef __CUDACC__\nnamespace app {\n";
		static const char mid[] = "void check_last(const char *);\n";
		struct astra_harness_part parts[2] = {
			{ "main.cu", tu, sizeof(tu) - 1 },
			{ "all.cuh", mid, sizeof(mid) - 1 },
		};
		fx_init(&f, "k.cuh", "#pragma once\n__global__ void k(int *o) { o[0] = 1; }\n"
			"void k_gpu(int *o) { k<<<1, 1>>>(o); check_last(\"k\"); }\n", "k", "__global__ void k");
		fx_param(&f, "int *", "o");
		fx_shape(&f, "n=1");
		fx_buffer(&f, "o", "1", 1);
		fx_launch(&f, "1", "1");
		h.kernel = &f.k;
		h.src_path = "k.cuh";
		h.src_text = f.tu.text;
		h.src_len = f.tu.len;
		h.prefix = parts;
		h.nr_prefix = 2;
		c[0].text = "__global__ void k(int *o) { o[0] = 1; }\n";
		astra_buf_reset(&out);
		astra_buf_reset(&why);
		CHECK_INT(astra_harness_generate(&h, &out, &why), 0);
		CHECK(strstr(out.buf, "#define main astra_tu_main_\n#line 1 \"main.cu\"\n#include \"helper.h\"\n"
			      "#ifdef __CUDACC__\nnamespace app {\n#line 1 \"all.cuh\"\nvoid check_last(const char *);\n"
			      "#line 1 \"k.cuh\"\n#pragma once\n") != NULL);
		CHECK(strstr(out.buf, "o[0] = 1; }\n}\n#endif\n#undef main") != NULL);
		CHECK(strstr(out.buf, "::app::astra_cand_0::k<<<astra_g") != NULL);
		h.prefix = NULL;
		h.nr_prefix = 0;
		fixture_release(&f);
	}
	astra_buf_release(&out);
	astra_buf_release(&why);
}

static const struct astra_cand_result *find(const struct astra_verify_result *r, const char *name)
{
	size_t i;
	for (i = 0; i < r->nr_cands; i++)
		if (!strcmp(r->cands[i].name, name))
			return &r->cands[i];
	return NULL;
}

static void test_compile(const char *nvcc)
{
	struct fixture f;
	struct astra_verify_opts o = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result r;
	struct astra_variant v[6];
	const char *names[] = { "good.cu", "own.cu", "sig.cu", "error.cu", "geometry.cu", "include.cu" };
	const char *texts[] = { good, own_geometry, changed_signature, compile_error, bad_geometry, with_include };
	const struct astra_cand_result *cr;
	size_t i;

	make_fixture(&f);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 6; i++)
		v[i].text = (char *)texts[i];
	o.nvcc = nvcc;
	o.no_run = 1;
	o.cc = 90;
	o.keep = 1;
	CHECK_INT(astra_verify(&f.tu, &f.k, NULL, v, names, 6, &o, &r), 0);
	CHECK(r.compiled);
	CHECK(!r.ran);
	CHECK(r.not_run && strstr(r.not_run, "not run"));
	cr = find(&r, "good.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_NOT_RUN);
	cr = find(&r, "own.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_NOT_RUN);
	cr = find(&r, "sig.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_REJECTED && cr->check && !strcmp(cr->check, "signature"));
	cr = find(&r, "error.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_REJECTED && cr->check && !strcmp(cr->check, "compile"));
	CHECK(cr && cr->compile_log && strstr(cr->compile_log, "error.cu(4)") && strstr(cr->compile_log, "undefined_thing"));
	cr = find(&r, "geometry.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_REJECTED && cr->check && !strcmp(cr->check, "geometry"));
	cr = find(&r, "include.cu");
	CHECK(cr && cr->verdict == ASTRA_CAND_REJECTED && cr->check && !strcmp(cr->check, "preprocessor"));
	for (i = 0; i < r.nr_cands; i++)
		if (r.cands[i].verdict == ASTRA_CAND_REJECTED)
			fprintf(stderr, "  %s: %s: %s\n", r.cands[i].name, r.cands[i].check, r.cands[i].reason);

	/* The compiled program: its host-side self test passes, and without a
	 * GPU it says so (exit 5) instead of pretending.  o.keep asks for the
	 * work directory, so its absence is a failure, not a reason to stop. */
	CHECK(r.workdir != NULL);
	if (r.workdir) {
		char *prog = xasprintf("%s/astra-test", r.workdir);
		char *argv1[] = { prog, (char *)"--selftest", NULL };
		char *argv2[] = { prog, NULL };
		struct astra_buf out = ASTRA_BUF_INIT;
		struct astra_run_opts ro = { 0 };
		int rc;
		ro.out = &out;
		ro.timeout = 120;
		rc = astra_run(argv1, &ro);
		CHECK_INT(rc, 0);
		CHECK(strstr(out.buf, "\"event\":\"selftest\"") && strstr(out.buf, "\"failed\":0"));
		if (!getenv("ASTRA_TEST_HAVE_GPU") || strcmp(getenv("ASTRA_TEST_HAVE_GPU"), "1")) {
			astra_buf_reset(&out);
			rc = astra_run(argv2, &ro);
			CHECK_INT(rc, 5);
			CHECK(strstr(out.buf, "\"event\":\"nogpu\"") != NULL);
		}
		astra_buf_release(&out);
		{
			char *cmd[] = { (char *)"rm", (char *)"-rf", r.workdir, NULL };
			astra_run(cmd, NULL);
		}
		free(prog);
	}
	astra_verify_result_release(&r);
	fixture_release(&f);
}

/*
 * A production kernel (issue 15): a function-pointer template parameter,
 * 64 KiB of dynamic shared memory, a launch through the file's own
 * ceil_div, and a candidate whose own grid is `min` of a 64-bit count and
 * an int cap.  The program must generate and compile, and raise each
 * version's shared-memory limit before launching it.
 */
static const char prod_text[] =
	"#include <stdint.h>\n"
	"__device__ float silu_fn(const float &x) { return x / (1.0f + expf(-x)); }\n"
	"__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
	"template <float (*Act)(const float &)>\n"
	"__global__ void act(float *out, const float *x, int64_t n)\n"
	"{\n"
	"\textern __shared__ float stage[];\n"
	"\tint64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tstage[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
	"\t__syncthreads();\n"
	"\tif (i < n)\n"
	"\t\tout[i] = Act(stage[threadIdx.x]);\n"
	"}\n";

static const char prod_cand[] =
	"#pragma astra launch(grid=min(ceil_div(n, 256), 1056), block=256, shmem=64 * 1024)\n"
	"template <float (*Act)(const float &)>\n"
	"__global__ void act(float *out, const float *x, int64_t n)\n"
	"{\n"
	"\textern __shared__ float stage[];\n"
	"\tfor (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)\n"
	"\t\tout[i] = Act(x[i]);\n"
	"\t(void)stage;\n"
	"}\n";

static void make_prod(struct fixture *f)
{
	fx_init(f, "prod.cu", prod_text, "act", "template");
	fx_template(f, "float (*)(const float &)", "Act");
	fx_param(f, "float *", "out");
	fx_param(f, "const float *", "x");
	fx_param(f, "int64_t", "n");
	fx_types(f, "Act", "silu_fn");
	fx_shape(f, "n=100000");
	fx_shape(f, "n=7");
	fx_buffer(f, "out", "n", 1);
	fx_buffer(f, "x", "n", 0);
	fx_launch(f, "ceil_div(n, 256)", "256");
	f->k.pragma.shmem = xstrdup("64 * 1024");
	fx_dep(f, "silu_fn", "__device__ float silu_fn(const float &x) { return x / (1.0f + expf(-x)); }");
	fx_dep(f, "ceil_div", "__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) "
	       "{ return (a + b - 1) / b; }");
}

static void test_production(const char *nvcc)
{
	struct fixture f;
	struct astra_harness h;
	struct astra_harness_cand c;
	struct astra_buf out = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_verify_opts o = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result r;
	struct astra_variant v;
	const char *name = "prod-cand.cu";

	make_prod(&f);
	memset(&h, 0, sizeof(h));
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.text = prod_cand;
	c.grid = "min(ceil_div(n, 256), 1056)";
	c.block = "256";
	c.shmem = "64 * 1024";
	h.kernel = &f.k;
	h.src_path = "prod.cu";
	h.src_text = f.tu.text;
	h.src_len = f.tu.len;
	h.cands = &c;
	h.nr_cands = 1;
	CHECK_INT(astra_harness_generate(&h, &out, &why), 0);
	/* The function-pointer parameter is declared through its type. */
	CHECK(strstr(out.buf, "using astra_kind_0 = float (*)(const float &);\n"
			      "constexpr astra_kind_0 Act = (silu_fn);\n") != NULL);
	/* Each version's shared-memory limit is raised before its launch. */
	CHECK(strstr(out.buf, "\tif (astra_shmem > 48 * 1024)\n\t\t(void)cudaFuncSetAttribute((const void *)&::act<Act>, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)astra_shmem);\n"
			      "\t::act<Act><<<") != NULL);
	CHECK(strstr(out.buf, "(void)cudaFuncSetAttribute((const void *)&::astra_cand_0::act<Act>, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)astra_s);") != NULL);
	/* A candidate's geometry sees min/max that take mixed types. */
	CHECK(strstr(out.buf, "\tusing ::astra_rt::geo::min;\n\tusing ::astra_rt::geo::max;\n#line 1 \"prod-cand.cu "
			      "(geometry)\"\n\tdim3 astra_g = dim3(min(ceil_div(n, 256), 1056));") != NULL);
	astra_buf_release(&out);
	astra_buf_release(&why);

	if (nvcc && *nvcc) {
		memset(&v, 0, sizeof(v));
		v.text = (char *)prod_cand;
		o.nvcc = nvcc;
		o.no_run = 1;
		o.cc = 90;
		CHECK_INT(astra_verify(&f.tu, &f.k, NULL, &v, &name, 1, &o, &r), 0);
		CHECK(r.compiled);
		CHECK(r.setup_check == NULL);
		CHECK(r.nr_cands == 1 && r.cands[0].verdict == ASTRA_CAND_NOT_RUN);
		if (r.nr_cands == 1 && r.cands[0].verdict != ASTRA_CAND_NOT_RUN)
			fprintf(stderr, "  %s: %s: %s\n", r.cands[0].name, r.cands[0].check, r.cands[0].reason);
		if (r.not_run && r.setup_check)
			fprintf(stderr, "  %s\n", r.not_run);
		astra_verify_result_release(&r);
	}
	fixture_release(&f);
}

/*
 * Which kernels may read part of an input, so that their candidates are held
 * to the device's ceiling by the bytes written alone: an embedding (an
 * integer index buffer with a range, no bytes()).  A softmax with a range
 * on its float input, or the embedding with bytes(), keeps the full count.
 */
static void test_reads_part(void)
{
	struct fixture f;
	const char *emb = "__global__ void emb(float *out, const int *ids, const float *table, int n) { }\n";
	fx_init(&f, "e.cu", emb, "emb", "__global__");
	fx_param(&f, "float *", "out");
	fx_param(&f, "const int *", "ids");
	fx_param(&f, "const float *", "table");
	fx_param(&f, "int", "n");
	CHECK_INT(astra_verify_reads_part(&f.k), 0);    /* no range: random ids could not gather */
	fx_range(&f, "table", "-1", "1");
	CHECK_INT(astra_verify_reads_part(&f.k), 0);    /* a range on the floats is no index */
	fx_range(&f, "ids", "0", "9");
	CHECK_INT(astra_verify_reads_part(&f.k), 1);
	f.k.pragma.bytes = xstrdup("n*8");
	CHECK_INT(astra_verify_reads_part(&f.k), 0);    /* the user said what it moves */
	free(f.k.pragma.bytes);
	f.k.pragma.bytes = NULL;
	fixture_release(&f);
	fx_init(&f, "e.cu", emb, "emb", "__global__");
	fx_param(&f, "int64_t *", "out");               /* written integers are no index */
	fx_range(&f, "out", "0", "9");
	CHECK_INT(astra_verify_reads_part(&f.k), 0);
	fx_param(&f, "const unsigned *", "rows");       /* unsigned ids are (the capture infers their range) */
	fx_range(&f, "rows", "0", "9");
	CHECK_INT(astra_verify_reads_part(&f.k), 1);
	fixture_release(&f);
}

int main(void)
{
	const char *nvcc = getenv("NVCC");
	test_generate();
	test_reads_part();
	test_production(nvcc);
	/* Half of this test is the compile: without nvcc it is a skip, never
	 * a pass (unless the half that ran already failed). */
	if (!nvcc || !*nvcc)
		return unit_skip("skipped: NVCC is not set: the generated test program was not compiled");
	test_compile(nvcc);
	return unit_done();
}
