/*
 * test-rewrite.c - the rewritten text of a substituted translation unit:
 * in-place and launcher substitutions, launch sites, #line fidelity,
 * variant launch clauses and include scanning.
 *
 * Kernels are described by hand (as extract.c would), from markers in the
 * test sources.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "passes/rewrite.h"
#include "unit.h"

static const int cc90[] = { 90 };
static const int cc90_100[] = { 90, 100 };

/* Fill k for the kernel whose definition starts at `marker` in src. */
static void mk_kernel(struct astra_kernel *k, const char *src, const char *name, const char *marker,
		      const char *file, const char *const *ptypes, const char *const *pnames, size_t np)
{
	const char *s = strstr(src, marker), *p;
	int depth = 0;
	size_t i;
	memset(k, 0, sizeof(*k));
	k->name = xstrdup(name);
	k->file = xstrdup(file);
	k->start = (size_t)(s - src);
	p = strchr(s, '{');
	k->body_start = (size_t)(p - src);
	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			break;
	}
	k->end = (size_t)(p + 1 - src);
	k->text = xstrndup(s, k->end - k->start);
	k->params = xcalloc(np ? np : 1, sizeof(*k->params));
	k->nr_params = np;
	for (i = 0; i < np; i++) {
		k->params[i].type = xstrdup(ptypes[i]);
		k->params[i].name = xstrdup(pnames[i]);
		k->params[i].is_pointer = strchr(ptypes[i], '*') != NULL;
	}
}

static void free_kernel(struct astra_kernel *k)
{
	size_t i;
	free(k->name);
	free(k->file);
	free(k->text);
	for (i = 0; i < k->nr_params; i++) {
		free(k->params[i].type);
		free(k->params[i].name);
	}
	free(k->params);
	for (i = 0; i < k->nr_tmpl; i++) {
		free(k->tmpl_params[i]);
		free(k->tmpl_kinds[i]);
	}
	free(k->tmpl_params);
	free(k->tmpl_kinds);
}

/* Launch sites: every `name<<<` (or name<...><<<) up to its closing ')'. */
static void mk_launches(struct astra_tu *tu, const char *name)
{
	const char *p = tu->text;
	while ((p = strstr(p, name)) != NULL) {
		const char *q = p + strlen(name), *r;
		int depth = 0;
		if (*q == '<' && strncmp(q, "<<<", 3))
			q = strchr(q, '>') + 1;
		if (strncmp(q, "<<<", 3)) {
			p = q;
			continue;
		}
		r = strchr(strstr(q, ">>>"), '(');
		for (; *r; r++) {
			if (*r == '(')
				depth++;
			else if (*r == ')' && --depth == 0)
				break;
		}
		ALLOC_GROW(tu->launches, tu->nr_launches + 1, tu->alloc_launches);
		memset(&tu->launches[tu->nr_launches], 0, sizeof(tu->launches[0]));
		tu->launches[tu->nr_launches].start = (size_t)(p - tu->text);
		tu->launches[tu->nr_launches].end = (size_t)(r + 1 - tu->text);
		tu->nr_launches++;
		p = r;
	}
}

/*
 * The line number the preprocessor gives the first output line that
 * contains needle, following #line directives; file receives the name.
 */
static long mapped_line(const char *out, const char *needle, char *file, size_t fsz)
{
	long line = 1;
	const char *p = out;
	file[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (!strncmp(p, "#line ", 6)) {
			char *e;
			const char *q;
			line = strtol(p + 6, &e, 10);
			q = strchr(e, '"');
			if (q) {
				size_t m = (size_t)(strchr(q + 1, '"') - q - 1);
				if (m >= fsz)
					m = fsz - 1;
				memcpy(file, q + 1, m);
				file[m] = '\0';
			}
		} else {
			if (memmem(p, n, needle, strlen(needle)))
				return line;
			line++;
		}
		p = nl ? nl + 1 : p + n;
	}
	return -1;
}

static const char *scale_types[] = { "float *", "int" };
static const char *scale_names[] = { "x", "n" };

static const char scale_src[] =
	"#include \"h.cuh\"\n"                                  /* 1 */
	"// the kernel\n"                                       /* 2 */
	"#pragma astra launch(grid=n, block=256)\n"             /* 3 */
	"__global__ void scale(float *x, int n)\n"              /* 4 */
	"{\n"                                                   /* 5 */
	"\tint i = threadIdx.x;\n"                              /* 6 */
	"\tif (i < n) x[i] *= 2;\n"                             /* 7 */
	"}\n"                                                   /* 8 */
	"int after_kernel = __LINE__;\n"                        /* 9 */
	"void host(float *x, int n, cudaStream_t s)\n"          /* 10 */
	"{\n"                                                   /* 11 */
	"\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, n++);\n"    /* 12 */
	"\tscale<<<1,\n"                                        /* 13 */
	"\t        2>>>(x, n);\n"                               /* 14 */
	"\tscale<<<dim3(1, 2), 3>>>\n"                          /* 15 */
	"\t\t(x, 7);\n"                                         /* 16 */
	"}\n"                                                   /* 17 */
	"int last_line = __LINE__;\n";                          /* 18 */

static void test_in_place(void)
{
	struct astra_tu tu;
	struct astra_kernel k;
	struct astra_variant v = { 0 };
	struct astra_subst s = { &k, &v, cc90, 1, 0, NULL, 0, NULL };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;
	char file[64];

	memset(&tu, 0, sizeof(tu));
	tu.path = "k.cu";
	tu.text = (char *)scale_src;
	tu.len = strlen(scale_src);
	mk_kernel(&k, scale_src, "scale", "__global__ void scale", "k.cu", scale_types, scale_names, 2);
	v.text = xstrdup("#pragma astra noalias\n__global__ void scale(float *x, int n)\n{\n\t/* fast */\n}\n");
	v.origin = xstrdup("rules: x */ y");
	CHECK(!astra_variant_has_geometry(&v));
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 0); /* the caller only asks for geometry variants */
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);

	if (getenv("DUMP")) fputs(out.buf, stderr);
	CHECK(!strncmp(out.buf, "#line 1 \"k.cu\"\n#include \"h.cuh\"\n", 32));
	CHECK(strstr(out.buf, "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) /* astra-cc: rules: x __ y */\n"));
	CHECK(strstr(out.buf, "/* fast */"));
	CHECK(!strstr(out.buf, "#pragma astra noalias")); /* the variant's pragma lines are blanked */
	CHECK(strstr(out.buf, "#else\n"));
	CHECK(strstr(out.buf, "#endif\n"));
	/* Lines keep their numbers: before, inside and after the edit. */
	CHECK_INT(mapped_line(out.buf, "// the kernel", file, sizeof(file)), 2);
	CHECK_INT(mapped_line(out.buf, "__global__ void scale(float *x, int n)", file, sizeof(file)), 4);
	CHECK_INT(mapped_line(out.buf, "/* fast */", file, sizeof(file)), 6);
	CHECK_INT(mapped_line(out.buf, "if (i < n)", file, sizeof(file)), 7);
	CHECK_INT(mapped_line(out.buf, "int after_kernel", file, sizeof(file)), 9);
	CHECK_STR(file, "k.cu");
	CHECK_INT(mapped_line(out.buf, "int last_line", file, sizeof(file)), 18);
	/* The original launch sites are untouched. */
	CHECK(strstr(out.buf, "\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, n++);\n"));

	astra_buf_release(&out);
	astra_edits_release(&e);
	free(v.text);
	free(v.origin);
	free_kernel(&k);
}

static void test_geometry(void)
{
	struct astra_tu tu;
	struct astra_kernel k;
	struct astra_variant v = { 0 };
	struct astra_subst s = { &k, &v, cc90_100, 2, 0, NULL, 0, NULL };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;
	char file[64];

	memset(&tu, 0, sizeof(tu));
	tu.path = "k.cu";
	tu.text = (char *)scale_src;
	tu.len = strlen(scale_src);
	mk_kernel(&k, scale_src, "scale", "__global__ void scale", "k.cu", scale_types, scale_names, 2);
	tu.kernels = &k;
	tu.nr_kernels = 1;
	mk_launches(&tu, "scale");
	CHECK_INT(tu.nr_launches, 3);
	v.text = xstrdup("__device__ float twice(float a) { return 2 * a; }\n"
			 "#pragma astra launch(grid=(n + 1023) / 1024, block=256)\n"
			 "__global__ void __launch_bounds__(256) scale(float *x, int n)\n"
			 "{\n\tx[0] = twice(x[0]);\n}\n");
	v.grid = xstrdup("(n + 1023) / 1024"); /* as astra_extract_candidate fills them */
	v.block = xstrdup("256");
	CHECK(astra_variant_has_geometry(&v));
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 3);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);

	if (getenv("DUMP")) fputs(out.buf, stderr);
	/* The original is untouched; the variant follows under its private name. */
	CHECK(strstr(out.buf, "__global__ void scale(float *x, int n)\n{\n\tint i = threadIdx.x;"));
	CHECK(strstr(out.buf, "#if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)"));
	CHECK(strstr(out.buf, "__global__ void __launch_bounds__(256) __astra_v_scale(float *x, int n)\n{\n\tx[0] = twice"));
	CHECK(strstr(out.buf, "__device__ float twice(float a)"));
	CHECK_INT(mapped_line(out.buf, "__astra_v_scale(float *x, int n)", file, sizeof(file)), 4);
	CHECK_INT(mapped_line(out.buf, "__device__ float twice", file, sizeof(file)), 2);
	/* Unverified architectures get a stub with the same signature. */
	CHECK(strstr(out.buf, "__global__ void __launch_bounds__(256) __astra_v_scale(float *x, int n)\n{ __trap(); }"));
	/* The launcher. */
	CHECK(strstr(out.buf, "namespace {\nstruct __astra_pending_scale {\n"));
	CHECK(strstr(out.buf, "\t\tstatic thread_local __astra_pending_scale *__astra_t = 0;\n"));
	CHECK(strstr(out.buf, "\nstatic inline void __astra_launch_scale(float * x, int n)\n"));
	CHECK(strstr(out.buf, "static const int __astra_cc[] = { 90, 100 };"));
	CHECK(strstr(out.buf, "__astra_pending_scale::__astra_ok(__astra_c, (const void *)__astra_v_scale, __astra_cc, 2)"));
	CHECK(strstr(out.buf, "__astra_v_scale<<<dim3((n + 1023) / 1024), dim3(256), __astra_p->__astra_shmem, __astra_p->__astra_stream>>>(x, n);"));
	CHECK(strstr(out.buf, "\t\tscale<<<__astra_p->__astra_grid, __astra_p->__astra_block, __astra_p->__astra_shmem, __astra_p->__astra_stream>>>(x, n);"));
	CHECK(strstr(out.buf, "ptxVersion == __astra_cc[__astra_i]"));
	CHECK(strstr(out.buf, "binaryVersion == __astra_cc[__astra_i]"));
	/* Sites: each argument once, the stream kept, defaults filled in, lines kept. */
	CHECK(strstr(out.buf, "\t(__astra_pending_scale(((n + 255) / 256), ( 256), ( 0), ( s)) ? (void)0 : __astra_launch_scale(x, n++));\n"));
	CHECK(strstr(out.buf, "\t(__astra_pending_scale((1), (\n\t        2), 0, 0) ? (void)0 : __astra_launch_scale(x, n));\n"));
	CHECK(strstr(out.buf, "\t(__astra_pending_scale((dim3(1, 2)), ( 3), 0, 0) ? (void)0 : __astra_launch_scale\n(x, 7));\n"));
	CHECK(!strstr(out.buf, "scale<<<(n + 255)"));
	CHECK_INT(mapped_line(out.buf, "int after_kernel", file, sizeof(file)), 9);
	CHECK_INT(mapped_line(out.buf, "__astra_pending_scale(((n", file, sizeof(file)), 12);
	CHECK_INT(mapped_line(out.buf, "(x, 7));", file, sizeof(file)), 16);
	CHECK_INT(mapped_line(out.buf, "int last_line", file, sizeof(file)), 18);
	CHECK_STR(file, "k.cu");

	/*
	 * Direct: every device pass is verified.  The same sites and pending
	 * configurations; the launcher launches the variant with no test, and
	 * the original is not named.
	 */
	astra_buf_release(&out);
	astra_edits_release(&e);
	s.direct = 1;
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 3);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);
	if (getenv("DUMP")) fputs(out.buf, stderr);
	CHECK(strstr(out.buf, "\t(__astra_pending_scale(((n + 255) / 256), ( 256), ( 0), ( s)) ? (void)0 : __astra_launch_scale(x, n++));\n"));
	CHECK(strstr(out.buf, "\t\tstatic thread_local __astra_pending_scale *__astra_t = 0;\n"));
	CHECK(strstr(out.buf, "\nstatic inline void __astra_launch_scale(float * x, int n)\n{\n"
			      "\t__astra_pending_scale *__astra_p = __astra_pending_scale::__astra_take();\n"
			      "\tusing __astra_geo_scale::min;\n\tusing __astra_geo_scale::max;\n"
			      "\tif (!__astra_p)\n\t\treturn;\n"
			      "\tif (__astra_p->__astra_shmem > 48 * 1024)\n"
			      "\t\t(void)cudaFuncSetAttribute((const void *)__astra_v_scale, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__astra_p->__astra_shmem);\n"
			      "\t__astra_v_scale<<<dim3((n + 1023) / 1024), dim3(256), __astra_p->__astra_shmem, "
			      "__astra_p->__astra_stream>>>(x, n);\n}\n"));
	/* min and max of mixed types for the variant's geometry, without a header */
	CHECK(strstr(out.buf, "namespace __astra_geo_scale {\ntemplate <typename __astra_A, typename __astra_B>\n"
			      "inline auto min(__astra_A __astra_a, __astra_B __astra_b) -> decltype(true ? __astra_A() : __astra_B())\n"));
	CHECK(!strstr(out.buf, "__astra_ok"));
	CHECK(!strstr(out.buf, "__astra_cc"));
	CHECK(!strstr(out.buf, "\tscale<<<"));
	CHECK(!strstr(out.buf, "ptxVersion"));
	CHECK(strstr(out.buf, "__global__ void scale(float *x, int n)\n{\n\tint i = threadIdx.x;"));
	CHECK_INT(mapped_line(out.buf, "(x, 7));", file, sizeof(file)), 16);
	CHECK_INT(mapped_line(out.buf, "int last_line", file, sizeof(file)), 18);

	astra_buf_release(&out);
	astra_edits_release(&e);
	free(tu.launches);
	free(v.text);
	free(v.grid);
	free(v.block);
	free_kernel(&k);
}

static void test_template_and_order(void)
{
	static const char src[] =
		"template <typename T> __global__ void fill(T *p, int n);\n"
		"void early(float *p) { fill<float><<<1, 32>>>(p, 4); }\n"
		"template <typename T, int N = 4>\n"
		"__global__ void fill(T *p, int n)\n"
		"{\n\tp[0] = N;\n}\n"
		"void late(double *p, cudaStream_t st) { fill<<<2, 64, 128, st>>>(p, 8); fill<double, 2><<<1, 1>>>(p, 1); }\n";
	static const char *types[] = { "T *", "int" };
	static const char *names[] = { "p", "n" };
	struct astra_tu tu;
	struct astra_kernel k;
	struct astra_variant v = { 0 };
	struct astra_subst s = { &k, &v, cc90, 1, 0, NULL, 0, NULL };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;

	memset(&tu, 0, sizeof(tu));
	tu.path = "t.cu";
	tu.text = (char *)src;
	tu.len = strlen(src);
	mk_kernel(&k, src, "fill", "template <typename T, int N", "t.cu", types, names, 2);
	k.is_template = 1;
	k.nr_tmpl = 2;
	k.tmpl_params = xcalloc(2, sizeof(char *));
	k.tmpl_kinds = xcalloc(2, sizeof(char *));
	k.tmpl_params[0] = xstrdup("T");
	k.tmpl_kinds[0] = xstrdup("typename");
	k.tmpl_params[1] = xstrdup("N");
	k.tmpl_kinds[1] = xstrdup("int");
	tu.kernels = &k;
	tu.nr_kernels = 1;
	mk_launches(&tu, "fill");
	CHECK_INT(tu.nr_launches, 3);
	v.text = xstrdup("#pragma astra launch(block=128, shmem=sizeof(T) * 128)\n"
			 "template <typename T, int N>\n__global__ void fill(T *p, int n) { p[1] = N; }\n");
	v.block = xstrdup("128");
	v.shmem = xstrdup("sizeof(T) * 128");
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "t.cu", &s, NULL), 0);
	/* The launch before the definition keeps the original. */
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 2);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "t.cu", &out), 0);
	if (getenv("DUMP2"))
		fputs(out.buf, stderr);
	CHECK(strstr(out.buf, "fill<float><<<1, 32>>>(p, 4);"));
	CHECK(strstr(out.buf, "template <typename T, int N = 4>\nstatic inline void __astra_launch_fill(T * p, int n)\n"));
	CHECK(strstr(out.buf, "template <typename T, int N>\n__global__ void __astra_v_fill(T *p, int n) { p[1] = N; }"));
	CHECK(strstr(out.buf, "__astra_pending_fill::__astra_ok(__astra_c, (const void *)__astra_v_fill<T, N>, __astra_cc, 1)"));
	CHECK(strstr(out.buf, "__astra_v_fill<T, N><<<__astra_p->__astra_grid, dim3(128), (size_t)(sizeof(T) * 128), __astra_p->__astra_stream>>>(p, n);"));
	/* The variant's own shared memory: its limit raised when above 48 KiB, before the launch. */
	CHECK(strstr(out.buf, "__astra_cc, 1)) {\n\t\tif ((size_t)(sizeof(T) * 128) > 48 * 1024)\n"
			      "\t\t\t(void)cudaFuncSetAttribute((const void *)__astra_v_fill<T, N>, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(size_t)(sizeof(T) * 128));\n"
			      "\t\t__astra_v_fill<T, N><<<"));
	CHECK(strstr(out.buf, "\t} else\n\t\tfill<T, N><<<__astra_p->__astra_grid"));
	CHECK(strstr(out.buf, "\t\tfill<T, N><<<__astra_p->__astra_grid, __astra_p->__astra_block, __astra_p->__astra_shmem, __astra_p->__astra_stream>>>(p, n);"));
	CHECK(strstr(out.buf, "(__astra_pending_fill((2), ( 64), ( 128), ( st)) ? (void)0 : __astra_launch_fill(p, 8));"));
	CHECK(strstr(out.buf, "(__astra_pending_fill((1), ( 1), 0, 0) ? (void)0 : __astra_launch_fill<double, 2>(p, 1));"));

	astra_buf_release(&out);
	astra_edits_release(&e);
	free(tu.launches);
	free(v.text);
	free(v.block);
	free(v.shmem);
	free_kernel(&k);
}

static void test_nested_and_qualified(void)
{
	static const char src[] =
		"namespace ns {\n__global__ void k(int *x, int n) { x[0] = n; }\n}\n"
		"void h(int *x, int *y) { ns::k<<<1, 2>>>(x, (ns::k<<<3, 4>>>(y, 1), 5)); }\n";
	static const char *types[] = { "int *", "int" };
	static const char *names[] = { "x", "n" };
	struct astra_tu tu;
	struct astra_kernel k;
	struct astra_variant v = { 0 };
	struct astra_subst s = { &k, &v, cc90, 1, 0, NULL, 0, NULL };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;

	memset(&tu, 0, sizeof(tu));
	tu.path = "n.cu";
	tu.text = (char *)src;
	tu.len = strlen(src);
	mk_kernel(&k, src, "k", "__global__ void k", "n.cu", types, names, 2);
	tu.kernels = &k;
	tu.nr_kernels = 1;
	/* The outer site spans the inner one. */
	tu.launches = xcalloc(2, sizeof(*tu.launches));
	tu.nr_launches = 2;
	tu.launches[0].start = (size_t)(strstr(src, "ns::k<<<1") - src);
	tu.launches[0].end = (size_t)(strstr(src, "5))") + 2 - src);
	tu.launches[1].start = (size_t)(strstr(src, "ns::k<<<3") - src);
	tu.launches[1].end = (size_t)(strstr(src, "1), 5") + 2 - src);
	v.text = xstrdup("#pragma astra launch(grid=n)\n__global__ void k(int *x, int n) { x[1] = n; }\n");
	v.grid = xstrdup("n");
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "n.cu", &s, NULL), 0);
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 2);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "n.cu", &out), 0);
	CHECK(strstr(out.buf, "void h(int *x, int *y) { (ns::__astra_pending_k((1), ( 2), 0, 0) ? (void)0 : "
			      "ns::__astra_launch_k(x, ((ns::__astra_pending_k((3), ( 4), 0, 0) ? (void)0 : "
			      "ns::__astra_launch_k(y, 1)), 5))); }\n"));
	/* The launcher is defined inside the namespace, after the kernel. */
	CHECK(strstr(out.buf, "__global__ void k(int *x, int n) { x[0] = n; }\n#if !defined(__CUDA_ARCH__)"));
	astra_buf_release(&out);
	astra_edits_release(&e);
	free(tu.launches);
	free(v.text);
	free(v.grid);
	free_kernel(&k);
}

static void test_columns_and_midline(void)
{
	static const char src[] =
		"namespace ns { static __global__ void k(int a) { }  int tail = 1; }\n"
		"int z = 0;\n";
	static const char *types[] = { "int" };
	static const char *names[] = { "a" };
	struct astra_kernel k;
	struct astra_variant v = { 0 };
	struct astra_subst s = { &k, &v, cc90, 1, 0, NULL, 0, NULL };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;
	char file[64];
	const char *tail;

	mk_kernel(&k, src, "k", "__global__ void k", "m.cu", types, names, 1);
	v.text = xstrdup("__global__ void k(int a) { /* v */ }");
	CHECK_INT(astra_rewrite_kernel(&e, src, strlen(src), "m.cu", &s, NULL), 0);
	CHECK_INT(astra_edits_apply(&e, src, strlen(src), "m.cu", &out), 0);
	/* The text before the kernel on its line stays; the directives start a new line. */
	CHECK(strstr(out.buf, "namespace ns { static \n#if defined(__CUDA_ARCH__)"));
	/* The original in #else keeps its column. */
	CHECK(strstr(out.buf, "#else\n#line 1 \"m.cu\"\n                      __global__ void k(int a) { }\n#endif\n"));
	/* The rest of the line keeps its line and column. */
	tail = strstr(out.buf, "#endif\n#line 1 \"m.cu\"\n");
	CHECK(tail && !strncmp(tail + 22, "                                                    int tail = 1; }\n", 67));
	CHECK_INT(mapped_line(out.buf, "int z = 0;", file, sizeof(file)), 2);
	astra_buf_release(&out);
	astra_edits_release(&e);
	free(v.text);
	free_kernel(&k);
}

static void test_failures(void)
{
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT;
	struct astra_variant v = { 0 };
	struct astra_kernel k;
	static const char *types[] = { "int" };
	static const char *names[] = { "a" };
	static const char src[] = "__global__ void k(int a) { }\n";
	struct astra_subst s = { &k, &v, cc90, 1, 0, NULL, 0, NULL };

	/* Overlapping edits, and edits past the end. */
	astra_edits_add(&e, 0, 4, xstrdup("a"), 0);
	astra_edits_add(&e, 2, 6, xstrdup("b"), 0);
	CHECK(astra_edits_apply(&e, "0123456789", 10, "x.cu", &out) < 0);
	astra_edits_release(&e);
	astra_edits_add(&e, 8, 12, xstrdup("a"), 0);
	CHECK(astra_edits_apply(&e, "0123456789", 10, "x.cu", &out) < 0);
	astra_edits_release(&e);
	/* A name that cannot be written in #line; quotes and backslashes are escaped. */
	astra_buf_reset(&out);
	CHECK(astra_edits_apply(&e, "x", 1, "a\nb.cu", &out) < 0);
	astra_buf_reset(&out);
	CHECK_INT(astra_edits_apply(&e, "x", 1, "a\"b\\c.cu", &out), 0);
	CHECK_STR(out.buf, "#line 1 \"a\\\"b\\\\c.cu\"\nx");

	mk_kernel(&k, src, "k", "__global__", "x.cu", types, names, 1);
	/* A geometry variant must define the kernel exactly once. */
	v.text = xstrdup("#pragma astra launch(block=64)\n__global__ void other(int a) { }\n");
	v.block = xstrdup("64");
	CHECK(astra_rewrite_kernel(&e, src, strlen(src), "x.cu", &s, NULL) < 0);
	free(v.text);
	v.text = xstrdup("__global__ void k(int a);\n__global__ void k(int a) { }\n__global__ void k(int a) { }\n");
	CHECK(astra_rewrite_kernel(&e, src, strlen(src), "x.cu", &s, NULL) < 0);
	free(v.text);
	/* A declaration and a definition are fine; strings and comments do not count. */
	v.text = xstrdup("__global__ void k(int a);\n// __global__ void k(int a) { }\n"
			 "__device__ const char *s = \"__global__ void k(int a) {}\";\n__global__ void k(int a) { }\n");
	CHECK_INT(astra_rewrite_kernel(&e, src, strlen(src), "x.cu", &s, NULL), 0);
	astra_edits_release(&e);
	/* No verified architecture. */
	s.nr_ccs = 0;
	CHECK(astra_rewrite_kernel(&e, src, strlen(src), "x.cu", &s, NULL) < 0);
	s.nr_ccs = 1;
	/* The kernel's text no longer matches the file. */
	CHECK(astra_rewrite_kernel(&e, "__global__ void k(int b) { }\n", strlen(src), "x.cu", &s, NULL) < 0);
	free(v.text);
	free(v.block);
	astra_buf_release(&out);
	free_kernel(&k);
}

static void test_includes(void)
{
	static const char src[] =
		"#include \"a.h\"\n"
		"  #  include <b.h>\n"
		"// #include \"comment.h\"\n"
		"/* #include \"block.h\" */\n"
		"const char *s = \"#include \\\"string.h\\\"\";\n"
		"#include_next \"next.h\"\n"
		"#if __has_include(\"c.h\") && __has_include(<d.h>)\n"
		"#include HEADER\n"
		"#endif\n"
		"#include \\\n  \"spliced.h\"\n";
	struct astra_increfs inc;
	astra_increfs_scan(&inc, src, strlen(src));
	CHECK_INT(inc.nr, 4);
	CHECK_INT(inc.computed, 1);
	if (inc.nr == 4) {
		CHECK_STR(inc.v[0].name, "a.h");
		CHECK_INT(inc.v[0].angle, 0);
		CHECK_INT(inc.v[0].start, 9);
		CHECK_INT(inc.v[0].end, 14);
		CHECK_STR(inc.v[1].name, "b.h");
		CHECK_INT(inc.v[1].angle, 1);
		CHECK_STR(inc.v[2].name, "c.h");
		CHECK_STR(inc.v[3].name, "spliced.h");
	}
	astra_increfs_release(&inc);
}

/*
 * Shape dispatch: two variants under private names, the choice function
 * (exactly what passes/dispatch.c emits), and a launcher that switches on
 * it: 1 and 2 launch the variants (the first with its own geometry, the
 * second with the site's), anything else the original.
 */
static void test_dispatch(void)
{
	struct astra_tu tu;
	struct astra_kernel k;
	struct astra_variant v[2];
	struct astra_dispatch d;
	struct astra_subst s = { &k, &v[0], cc90, 1, 0, v, 2, &d };
	struct astra_edits e = ASTRA_EDITS_INIT;
	struct astra_buf out = ASTRA_BUF_INIT, fn = ASTRA_BUF_INIT;
	char *pn = xstrdup("n");
	double values[3] = { 7, 1000, 1 << 20 };
	int choice[3] = { 0, 2, 1 };
	char file[64];

	memset(&tu, 0, sizeof(tu));
	memset(v, 0, sizeof(v));
	d.params = &pn;
	d.nr_params = 1;
	d.values = values;
	d.choice = choice;
	d.nr_points = 3;
	d.nr_versions = 3;
	tu.path = "k.cu";
	tu.text = (char *)scale_src;
	tu.len = strlen(scale_src);
	mk_kernel(&k, scale_src, "scale", "__global__ void scale", "k.cu", scale_types, scale_names, 2);
	tu.kernels = &k;
	tu.nr_kernels = 1;
	mk_launches(&tu, "scale");
	v[0].text = xstrdup("#pragma astra launch(grid=(n + 1023) / 1024, block=256)\n"
			    "__global__ void scale(float *x, int n)\n{\n\t/* four per thread */\n}\n");
	v[0].grid = xstrdup("(n + 1023) / 1024");
	v[0].block = xstrdup("256");
	v[0].origin = xstrdup("rules: elems-per-thread");
	v[1].text = xstrdup("__global__ void scale(float *x, int n)\n{\n\t/* fast math */\n}\n");
	v[1].origin = xstrdup("rules: fastmath");
	CHECK(astra_subst_has_launcher(&s));
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_rewrite_launches(&e, &tu, &s), 3);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);
	if (getenv("DUMP"))
		fputs(out.buf, stderr);
	/* The original untouched; both variants under private names, stubs elsewhere. */
	CHECK(strstr(out.buf, "__global__ void scale(float *x, int n)\n{\n\tint i = threadIdx.x;"));
	CHECK(strstr(out.buf, "__global__ void __astra_v1_scale(float *x, int n)\n{\n\t/* four per thread */"));
	CHECK(strstr(out.buf, "__global__ void __astra_v2_scale(float *x, int n)\n{\n\t/* fast math */"));
	CHECK(strstr(out.buf, "__global__ void __astra_v1_scale(float *x, int n)\n{ __trap(); }"));
	CHECK(strstr(out.buf, "__global__ void __astra_v2_scale(float *x, int n)\n{ __trap(); }"));
	CHECK(!strstr(out.buf, "__astra_v_scale"));
	CHECK_INT(mapped_line(out.buf, "/* fast math */", file, sizeof(file)), 6);
	/* The choice function, as emitted, and the launcher's switch on it. */
	astra_dispatch_emit(&d, "__astra_choose_scale", &fn);
	CHECK(strstr(out.buf, fn.buf));
	CHECK(strstr(out.buf, "\tswitch (__astra_choose_scale((double)(n))) {\n\tcase 1:\n"
			      "\t\tif (!__astra_pending_scale::__astra_ok(__astra_c, (const void *)__astra_v1_scale, "
			      "__astra_cc, 1))\n\t\t\tbreak;\n"
			      "\t\tif (__astra_p->__astra_shmem > 48 * 1024)\n\t\t\t(void)cudaFuncSetAttribute((const void *)__astra_v1_scale, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__astra_p->__astra_shmem);\n"
			      "\t\t__astra_v1_scale<<<dim3((n + 1023) / 1024), dim3(256), __astra_p->__astra_shmem, "
			      "__astra_p->__astra_stream>>>(x, n);\n\t\treturn;\n\tcase 2:\n"));
	CHECK(strstr(out.buf, "\t\t__astra_v2_scale<<<__astra_p->__astra_grid, __astra_p->__astra_block, "
			      "__astra_p->__astra_shmem, __astra_p->__astra_stream>>>(x, n);\n\t\treturn;\n"
			      "\tdefault:\n\t\tbreak;\n\t}\n"
			      "\tscale<<<__astra_p->__astra_grid, __astra_p->__astra_block, __astra_p->__astra_shmem, "
			      "__astra_p->__astra_stream>>>(x, n);\n}\n"));
	CHECK(strstr(out.buf, "\t(__astra_pending_scale(((n + 255) / 256), ( 256), ( 0), ( s)) ? (void)0 : __astra_launch_scale(x, n++));\n"));
	CHECK_INT(mapped_line(out.buf, "int last_line", file, sizeof(file)), 18);

	/* Direct, the original among the choices: no run-time test, the original still named. */
	astra_buf_release(&out);
	astra_edits_release(&e);
	s.direct = 1;
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);
	CHECK(!strstr(out.buf, "__astra_ok"));
	CHECK(strstr(out.buf, "\tcase 1:\n"
			      "\t\tif (__astra_p->__astra_shmem > 48 * 1024)\n\t\t\t(void)cudaFuncSetAttribute((const void *)__astra_v1_scale, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__astra_p->__astra_shmem);\n"
			      "\t\t__astra_v1_scale<<<"));
	CHECK(strstr(out.buf, "\tdefault:\n\t\tbreak;\n\t}\n\tscale<<<__astra_p->__astra_grid"));
	/* Direct, the original chosen nowhere: the last variant is the default, the original is not named. */
	astra_buf_release(&out);
	astra_edits_release(&e);
	choice[0] = 2;
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), 0);
	CHECK_INT(astra_edits_apply(&e, tu.text, tu.len, "k.cu", &out), 0);
	CHECK(strstr(out.buf, "\tcase 1:\n"
			      "\t\tif (__astra_p->__astra_shmem > 48 * 1024)\n\t\t\t(void)cudaFuncSetAttribute((const void *)__astra_v1_scale, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__astra_p->__astra_shmem);\n"
			      "\t\t__astra_v1_scale<<<"));
	CHECK(strstr(out.buf, "\tdefault:\n"
			      "\t\tif (__astra_p->__astra_shmem > 48 * 1024)\n\t\t\t(void)cudaFuncSetAttribute((const void *)__astra_v2_scale, "
			      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__astra_p->__astra_shmem);\n"
			      "\t\t__astra_v2_scale<<<"));
	CHECK(!strstr(out.buf, "\tscale<<<__astra_p->__astra_grid"));
	/* The choice reads a name that is not a scalar parameter of the kernel: refused. */
	astra_buf_release(&out);
	astra_edits_release(&e);
	free(pn);
	pn = xstrdup("x");
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), -1);
	free(pn);
	pn = xstrdup("rows");
	CHECK_INT(astra_rewrite_kernel(&e, tu.text, tu.len, "k.cu", &s, NULL), -1);

	free(pn);
	astra_buf_release(&fn);
	astra_edits_release(&e);
	free(tu.launches);
	astra_variant_release(&v[0]);
	astra_variant_release(&v[1]);
	free_kernel(&k);
}

int main(void)
{
	test_in_place();
	test_geometry();
	test_template_and_order();
	test_nested_and_qualified();
	test_columns_and_midline();
	test_failures();
	test_includes();
	test_dispatch();
	return unit_done();
}
