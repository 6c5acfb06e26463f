/* Unit tests for verify/screen.c: what a candidate may and may not contain. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "verify/screen.h"
#include "testsuite/unit/unit.h"

/* Screen text for kernel k; return the check name ("ok" when accepted). */
static const char *check_of(const char *text)
{
	static char last[64];
	struct astra_screened s;
	int rc = astra_screen_candidate(text, "k", &s);
	snprintf(last, sizeof(last), "%s", rc == 0 ? "ok" : s.check);
	if (rc != 0 && getenv("VERBOSE"))
		fprintf(stderr, "  %s: %s\n", s.check, s.reason);
	astra_screened_release(&s);
	return last;
}

int main(void)
{
	struct astra_screened s;
	struct astra_vec ns = ASTRA_VEC_INIT;
	char *g = NULL, *b = NULL, *sh = NULL;

	/* Accepted shapes of a variant. */
	CHECK_STR(check_of("__global__ void k(float *o, const float *x, int n)\n{ int i = threadIdx.x; if (i < n) o[i] = x[i]; }\n"), "ok");
	CHECK_STR(check_of("template <typename T, int V = 4>\n__global__ void __launch_bounds__(256) k(T *o)\n{ o[0] = T(); }\n"), "ok");
	CHECK_STR(check_of("__device__ __forceinline__ float sq(float x) { return x * x; }\n"
			   "struct Pair { float a, b; };\n"
			   "__constant__ float lut[4] = { 1, 2, 3, 4 };\n"
			   "static const __device__ float two = 2.0f;\n"
			   "extern __shared__ float smem[];\n"
			   "namespace detail { __device__ float h(float x) { return x; } }\n"
			   "__global__ void k(float *o) {\n#pragma unroll\n for (int i = 0; i < 4; i++) o[i] = sq(lut[i]) * two;\n"
			   " static constexpr int kK = 3; (void)kK; }\n"), "ok");
	CHECK_STR(check_of("__host__ __device__ inline float f(float x) { return x; }\n__global__ void k(float *o) { o[0] = f(1); }\n"), "ok");
	CHECK_STR(check_of("/* a comment with <<< and #include */\n// cudaMemcpy in a comment\n"
			   "__global__ void k(const char *s) { const char *m = \"<<<cudaStreamCreate #define\"; (void)m; }\n"), "ok");

	/* Raw strings and prefixed literals are one token (front/lex.c): their quotes and braces are text. */
	CHECK_STR(check_of("__global__ void k(char *o) { const char *s = R\"x(\"} <<<)x\"; o[0] = s[0] + u8\"{\"[0]; }\n"), "ok");

	/* Rejected, each for its reason. */
	CHECK_STR(check_of("#include <cstdio>\n__global__ void k(float *o) {}\n"), "preprocessor");
	CHECK_STR(check_of("#define N 4\n__global__ void k(float *o) {}\n"), "preprocessor");
	CHECK_STR(check_of("__global__ void child(float *o) {}\n__global__ void k(float *o) { child<<<1, 1>>>(o); }\n"), "stream");
	CHECK_STR(check_of("__global__ void k(float *o) { cudaStream_t s; cudaStreamCreateWithFlags(&s, 1); }\n"), "stream");
	CHECK_STR(check_of("__global__ void k(float *o) { cudaMemcpyAsync(o, o, 4, cudaMemcpyDeviceToDevice, 0); }\n"), "stream");
	CHECK_STR(check_of("__device__ float cache[1024];\n__global__ void k(float *o) { o[0] = cache[0]; }\n"), "state");
	CHECK_STR(check_of("__device__ const float *last_x = nullptr;\n__global__ void k(float *o) {}\n"), "state");
	CHECK_STR(check_of("__global__ void k(float *o) { static __shared__ int once; (void)once; }\n"), "state");
	CHECK_STR(check_of("__global__ void k(float *o) { float *p = (float *)malloc(16); free(p); }\n"), "state");
	CHECK_STR(check_of("struct S { int x; } state_var;\n__global__ void k(float *o) {}\n"), "state");
	CHECK_STR(check_of("void launch(float *o) { }\n__global__ void k(float *o) {}\n"), "host-code");
	CHECK_STR(check_of("int main() { return 0; }\n__global__ void k(float *o) {}\n"), "host-code");
	CHECK_STR(check_of("__global__ void k2(float *o) {}\n"), "kernel-missing");
	CHECK_STR(check_of("__device__ void k(float *o) {}\n"), "kernel-missing");
	CHECK_STR(check_of("__global__ void k(float *o) { o[0] = 1; \n"), "syntax");
	CHECK_STR(check_of("__global__ void k(float *o) { /* open\n"), "syntax");
	CHECK_STR(check_of("__global__ void k(float *o) { const char *s = \"open; }\n"), "syntax");

	/* extern "C" goes (the copy lives in a namespace); pragma astra lines blank, geometry kept. */
	CHECK(astra_screen_candidate("#pragma astra launch(grid=(n + 255) / 256, block=256)\n"
				     "extern \"C\" __global__ void k(float *o, int n) { }\n", "k", &s) == 0);
	CHECK(s.text && !strstr(s.text, "extern") && !strstr(s.text, "pragma"));
	CHECK(s.text && strchr(s.text, '\n') && strchr(s.text, '\n') == s.text + strcspn(s.text, "\n"));
	CHECK_STR(s.grid, "(n + 255) / 256");
	CHECK_STR(s.block, "256");
	CHECK(s.shmem == NULL);
	astra_screened_release(&s);
	CHECK(astra_screen_candidate("#pragma astra launch(grid=n, block=32) // a note\n"
				     "__global__ void k(float *o, int n) { }\n", "k", &s) == 0);
	CHECK(s.text && !strstr(s.text, "note") && !strstr(s.text, "pragma") && strstr(s.text, "__global__"));
	CHECK_STR(s.grid, "n");
	CHECK_STR(s.block, "32");
	astra_screened_release(&s);
	CHECK(astra_screen_candidate("extern \"C\" {\n__global__ void k(float *o) { }\n}\n", "k", &s) == 0);
	CHECK(s.text && !strstr(s.text, "extern") && strchr(s.text, '}') == strrchr(s.text, '}'));
	astra_screened_release(&s);

	/* launch(...) clause parsing: commas inside brackets, spaces as separators. */
	CHECK_INT(astra_screen_parse_launch("grid=dim3(rows, 2), block=256, shmem=cols*sizeof(float)", &g, &b, &sh), 0);
	CHECK_STR(g, "dim3(rows, 2)");
	CHECK_STR(b, "256");
	CHECK_STR(sh, "cols*sizeof(float)");
	free(g);
	free(b);
	free(sh);
	g = b = sh = NULL;
	CHECK_INT(astra_screen_parse_launch("grid=(rows + 3) / 4 block=128", &g, &b, &sh), 0);
	CHECK_STR(g, "(rows + 3) / 4");
	CHECK_STR(b, "128");
	free(g);
	free(b);
	g = b = NULL;
	CHECK_INT(astra_screen_parse_launch("grid=(rows", &g, &b, &sh), -1);
	CHECK_INT(astra_screen_parse_launch("block=", &g, &b, &sh), -1);
	CHECK_INT(astra_screen_parse_launch("threads=4", &g, &b, &sh), -1);
	free(g);
	free(b);
	free(sh);

	/* Scope of an offset: namespaces, anonymous ones, extern "C", C++17 nesting. */
	{
		const char *t = "#include <x>\nnamespace a { namespace { extern \"C\" { namespace b::c { /* { */ const char *s = \"}\"; KERNEL";
		CHECK_INT(astra_screen_scope(t, strlen(t), strstr(t, "KERNEL") - t, &ns), 4);
		CHECK_INT(ns.nr, 3);
		CHECK_STR(ns.nr > 0 ? ns.v[0] : NULL, "a");
		CHECK_STR(ns.nr > 1 ? ns.v[1] : NULL, "");
		CHECK_STR(ns.nr > 2 ? ns.v[2] : NULL, "b::c");
		astra_vec_clear(&ns);
		t = "namespace a { } int f() { return 0; }\nKERNEL";
		CHECK_INT(astra_screen_scope(t, strlen(t), strstr(t, "KERNEL") - t, &ns), 0);
		CHECK_INT(ns.nr, 0);
		t = "struct S { KERNEL";
		CHECK_INT(astra_screen_scope(t, strlen(t), strstr(t, "KERNEL") - t, &ns), -1);
		astra_vec_clear(&ns);
	}
	/* Preprocessor conditionals open at an offset: an include guard, #  if, closed ones, #elif/#else not new. */
	{
		const char *t = "#ifndef G_H\n#define G_H\n#if 0\nx\n#elif 1\n#else\n#endif\n/* #if 1 */\n"
				"const char *s = \"#ifdef X\";\n  #  ifdef __CUDACC__\n#if A && \\\n B\nKERNEL\n#endif\n#endif\n#endif\n";
		CHECK_INT(astra_screen_open_conditionals(t, strlen(t), strstr(t, "KERNEL") - t), 3);
		CHECK_INT(astra_screen_open_conditionals(t, strlen(t), strlen(t)), 0);
		t = "#include <x>\nKERNEL";
		CHECK_INT(astra_screen_open_conditionals(t, strlen(t), strstr(t, "KERNEL") - t), 0);
	}
	return unit_done();
}
