/* Unit tests for front/pragma.c: good input, bad input with exact diagnostics. */
#include "autoconfig.h"

#include <stdlib.h>

#include "front/pragma.h"
#include "testsuite/unit/unit.h"

/* Parse lines (one string per #pragma line, starting at line 10, col 15). */
static int parse(struct astra_pragma *p, struct astra_diags *d, const char *const *lines)
{
	int ret = 0;
	unsigned line = 10;
	astra_pragma_init(p);
	memset(d, 0, sizeof(*d));
	for (; *lines; lines++, line++)
		if (astra_pragma_parse(p, *lines, "k.cu", line, 15, d) < 0)
			ret = -1;
	return ret;
}

/* The canonical text of one line, or its diagnostics. */
static char *one(const char *line)
{
	struct astra_pragma p;
	struct astra_diags d;
	const char *lines[] = { line, NULL };
	char *out;
	if (parse(&p, &d, lines) < 0) {
		out = astra_diags_format(&d);
		if (out[0] && out[strlen(out) - 1] == '\n')
			out[strlen(out) - 1] = '\0';
	} else {
		out = astra_pragma_canonical(&p);
	}
	CHECK((d.nr == 0) == (strstr(out, "warning:") == NULL));
	astra_pragma_release(&p);
	astra_diags_release(&d);
	return out;
}

#define ONE(in, want)                        \
	do {                                 \
		char *got_ = one(in);        \
		CHECK_STR(got_, want);       \
		free(got_);                  \
	} while (0)

static void test_good(void)
{
	struct astra_pragma p;
	struct astra_diags d;
	const char *lines[] = {
		"optimize",
		"shapes(rows=4096, cols=4096) shapes(rows=7 cols=5120)",
		"buffers(out[rows*cols], residual[rows * cols], x[rows*cols], w[cols]) outputs(out residual)",
		"launch(grid=dim3((cols + 31) / 32, rows), block=dim3(32, 8), shmem=256*sizeof(float))",
		"types(T=__nv_bfloat16) types(T=std::pair<int, float>)",
		"scalars(eps=1e-6f) range(x, w: -4 .. 4) tolerance(out: rtol=2e-2, atol=1e-3) tolerance(atol=0.5)",
		"tune(VEC: 1 2 4 8) tune(BLOCK: 64*2, 256) noalias flops(8 * rows * cols) /* done */ bytes(rows * (cols + 1) * 4)",
		NULL,
	};
	char *c;
	CHECK_INT(parse(&p, &d, lines), 0);
	CHECK_INT(d.nr, 0);
	CHECK_INT(p.nr_shapes, 2);
	CHECK_STR(astra_assign_get(&p.shapes[1], "cols"), "5120");
	CHECK_INT(p.shapes[1].pos.line, 11);
	CHECK_INT(p.nr_buffers, 4);
	CHECK_STR(astra_pragma_buffer(&p, "residual")->count, "rows * cols");
	CHECK(astra_pragma_is_output(&p, "residual"));
	CHECK(!astra_pragma_is_output(&p, "x"));
	CHECK_STR(p.grid, "dim3((cols + 31) / 32, rows)");
	CHECK_STR(p.block, "dim3(32, 8)");
	CHECK_STR(p.shmem, "256*sizeof(float)");
	CHECK_INT(p.nr_types, 2);
	CHECK_STR(astra_assign_get(&p.types[1], "T"), "std::pair<int, float>");
	CHECK_STR(astra_assign_get(&p.scalars, "eps"), "1e-6f");
	CHECK_INT(p.nr_ranges, 2);
	CHECK_STR(p.ranges[1].name, "w");
	CHECK_STR(p.ranges[1].lo, "-4");
	CHECK_INT(p.nr_tolerances, 2);
	CHECK(p.tolerances[0].rtol == 2e-2 && p.tolerances[0].atol == 1e-3);
	CHECK(p.tolerances[1].name == NULL && p.tolerances[1].rtol < 0 && p.tolerances[1].atol == 0.5);
	CHECK_INT(p.nr_tunables, 2);
	CHECK_INT(p.tunables[0].nr, 4);
	CHECK_STR(p.tunables[1].values[0], "64*2");
	CHECK_STR(p.flops, "8 * rows * cols");
	CHECK_STR(p.bytes, "rows * (cols + 1) * 4");
	CHECK(p.flags == (ASTRA_PRAGMA_OPTIMIZE | ASTRA_PRAGMA_NOALIAS));
	CHECK_INT(p.line, 10);
	c = astra_pragma_canonical(&p);
	CHECK_STR(c, "optimize noalias shapes(rows=4096, cols=4096) shapes(rows=7, cols=5120) "
		     "buffers(out[rows*cols], residual[rows * cols], x[rows*cols], w[cols]) outputs(out, residual) "
		     "launch(grid=dim3((cols + 31) / 32, rows), block=dim3(32, 8), shmem=256*sizeof(float)) "
		     "types(T=__nv_bfloat16) types(T=std::pair<int, float>) scalars(eps=1e-6f) "
		     "range(x: -4 .. 4) range(w: -4 .. 4) tolerance(out: rtol=0.02, atol=0.001) tolerance(atol=0.5) "
		     "tune(VEC: 1, 2, 4, 8) tune(BLOCK: 64*2, 256) flops(8 * rows * cols) bytes(rows * (cols + 1) * 4)");
	{
		/* The canonical text parses back to itself. */
		struct astra_pragma q;
		struct astra_diags e;
		const char *again[] = { c, NULL };
		char *c2;
		CHECK_INT(parse(&q, &e, again), 0);
		c2 = astra_pragma_canonical(&q);
		CHECK_STR(c2, c);
		free(c2);
		astra_pragma_release(&q);
		astra_diags_release(&e);
	}
	free(c);
	astra_pragma_release(&p);
	astra_diags_release(&d);

	/* Blanks, comments, continuations and clause order do not matter. */
	ONE("  launch( grid = n /* all */ , block=256 )\\\n   shapes(n=1)",
	    "optimize shapes(n=1) launch(grid=n, block=256)");
	ONE("off", "off");
	ONE("", "");
	ONE("range(x: 0..1)", "optimize range(x: 0 .. 1)");
	ONE("range(x: .5 .. 1.5e3)", "optimize range(x: .5 .. 1.5e3)");
	ONE("range(x: std::numeric_limits<float>::min() .. 1)",
	    "optimize range(x: std::numeric_limits<float>::min() .. 1)");
	ONE("scalars(a=f(1, 2), b=x[1, 2], c={1, 2}, d=m<3, 4>::v)",
	    "optimize scalars(a=f(1, 2), b=x[1, 2], c={1, 2}, d=m<3, 4>::v)");
	ONE("scalars(a=n < 4 ? 1 : 2, b=x >> 1)", "optimize scalars(a=n < 4 ? 1 : 2, b=x >> 1)");
	ONE("types(T=unsigned int U=Vec<Vec<float, 2>>)", "optimize types(T=unsigned int, U=Vec<Vec<float, 2>>)");
	ONE("tolerance(rtol=+1)", "optimize tolerance(rtol=1)");
	ONE("tolerance(y: atol=1e-5f)", "optimize tolerance(y: atol=1e-05)");
	ONE("shapes(n=\"a,b)\") // trailing", "optimize shapes(n=\"a,b)\")");
}

static void test_bad(void)
{
	ONE("shape(n=1)", "k.cu:10:15: warning: unknown clause 'shape'; did you mean 'shapes'?");
	ONE("frobnicate", "k.cu:10:15: warning: unknown clause 'frobnicate'; expected optimize, off, shapes, "
			  "buffers, outputs, launch, types, scalars, range, tolerance, tune, noalias, flops or bytes");
	ONE("shapes n=1", "k.cu:10:22: warning: expected '(' after 'shapes', found 'n'");
	ONE("shapes(n=1", "k.cu:10:25: warning: expected ',' or ')' after a value, found the end of the line");
	ONE("shapes(n=(1+2)", "k.cu:10:29: warning: expected ',' or ')' after a value, found the end of the line");
	ONE("shapes(n=(1+2)]", "k.cu:10:29: warning: unbalanced ']'");
	ONE("shapes(n=f(1]))", "k.cu:10:27: warning: expected ')' before ']'");
	ONE("shapes(n=f(1, 2)", "k.cu:10:31: warning: expected ',' or ')' after a value, found the end of the line");
	ONE("shapes(n=f(1, 2", "k.cu:10:30: warning: expected ')' to close the '(' at column 25");
	ONE("shapes(n=)", "k.cu:10:24: warning: expected a value before ')'");
	ONE("shapes(n 1)", "k.cu:10:24: warning: expected '=' after 'n', found '1'");
	ONE("shapes(=1)", "k.cu:10:22: warning: expected a name, found '='");
	ONE("shapes()", "k.cu:10:22: warning: empty shapes(); expected name=value");
	ONE("shapes(n=1, n=2)", "k.cu:10:27: warning: 'n' is given twice in shapes()");
	ONE("shapes(n=1,)", "k.cu:10:26: warning: expected another item after ',' before ')'");
	ONE("shapes(n=1;2)", "k.cu:10:25: warning: unexpected ';' in a value");
	ONE("shapes(n= =2)", "k.cu:10:25: warning: unexpected '=' in a value");
	ONE("shapes(n=m=2)", "k.cu:10:25: warning: unexpected '=' in a value");
	ONE("shapes(n= ==2)", "k.cu:10:25: warning: expected a value before '=='");
	ONE("shapes(n=x+=2)", "k.cu:10:25: warning: unexpected '+=' in a value");
	ONE("shapes(n=f(x=2), m=a==b, k=a<=b)", "optimize shapes(n=f(x=2), m=a==b, k=a<=b)");
	ONE("shapes(n=1 @)", "k.cu:10:26: warning: stray '@' in a value");
	ONE("shapes(n=\"abc)", "k.cu:10:24: warning: stray '\"abc)' in a value");
	ONE("buffers(x)", "k.cu:10:24: warning: expected '[' after 'x' (buffers(x[count])), found ')'");
	ONE("buffers(x[n)", "k.cu:10:26: warning: expected ']' before ')'");
	ONE("buffers(x[n] x[2])", "k.cu:10:28: warning: buffer 'x' is described twice");
	ONE("buffers(x[])", "k.cu:10:25: warning: expected an element count before ']'");
	ONE("outputs()", "k.cu:10:23: warning: expected the name of a buffer the kernel writes before ')'");
	ONE("outputs(y, y)", "k.cu:10:26: warning: output 'y' is named twice");
	ONE("outputs(y z)", "optimize outputs(y, z)");
	ONE("outputs(y; z)", "k.cu:10:24: warning: expected ',' or ')' after an output, found ';'");
	ONE("launch(grd=1)", "k.cu:10:22: warning: unknown launch parameter 'grd'; expected grid, block or shmem");
	ONE("launch(grid=1) launch(grid=2)", "k.cu:10:37: warning: 'grid' is given twice in launch()");
	ONE("launch(grid=1) launch(block=2)", "optimize launch(grid=1, block=2)");
	ONE("range(x 0 .. 1)", "k.cu:10:23: warning: expected ':' (range(x: lo .. hi)) before '0'");
	ONE("range(x: 0 1)", "k.cu:10:27: warning: expected '..' between the bounds before ')'");
	ONE("range(x: 2 .. 1)", "k.cu:10:24: warning: empty range: the lower bound 2 is above the upper bound 1");
	ONE("range(x: .. 1)", "k.cu:10:24: warning: expected a lower bound before '..'");
	ONE("range(x: 0 ..)", "k.cu:10:28: warning: expected an upper bound before ')'");
	ONE("range(x: 0 .. 1) range(x: 0 .. 2)", "k.cu:10:38: warning: range of 'x' is given twice");
	ONE("tolerance(rtol=-1)", "k.cu:10:30: warning: a tolerance cannot be negative");
	ONE("tolerance(rtol=x)", "k.cu:10:30: warning: expected a number before 'x'");
	ONE("tolerance(rtol=0x1p3)", "optimize tolerance(rtol=8)");
	ONE("tolerance(rtol=1e)", "k.cu:10:30: warning: expected a decimal number, found '1e'");
	ONE("tolerance(tol=1)", "k.cu:10:25: warning: unknown tolerance 'tol'; expected rtol or atol");
	ONE("tolerance(rtol=1, rtol=2)", "k.cu:10:33: warning: 'rtol' is given twice");
	ONE("tolerance(y: rtol=1) tolerance(y: atol=2)", "k.cu:10:46: warning: tolerance of 'y' is given twice");
	ONE("tolerance(rtol=1) tolerance(atol=2)", "k.cu:10:33: warning: the default tolerance is given twice");
	ONE("tune(VEC 1 2)", "k.cu:10:24: warning: expected ':' (tune(NAME: v1 v2 ...)) before '1'");
	ONE("tune(VEC:)", "k.cu:10:24: warning: expected a value before ')'");
	ONE("tune(VEC: 1 2 1)", "k.cu:10:29: warning: value 1 of tunable 'VEC' is given twice");
	ONE("tune(VEC: 1) tune(VEC: 2)", "k.cu:10:33: warning: tunable 'VEC' is given twice");
	ONE("tune(VEC: 1 2", "k.cu:10:28: warning: expected ')' before the end of the line");
	ONE("flops(1) flops(2)", "k.cu:10:24: warning: flops() is given twice");
	ONE("bytes(1) bytes(2)", "k.cu:10:24: warning: bytes() is given twice");
	ONE("flops()", "k.cu:10:21: warning: expected an expression before ')'");
	ONE("optimize()", "k.cu:10:23: warning: 'optimize' takes no arguments");
	ONE("(", "k.cu:10:15: warning: expected a clause (optimize, shapes, buffers, outputs, launch, ...), found '('");
	ONE("shapes(n=1) \x01", "k.cu:10:27: warning: expected a clause (optimize, shapes, buffers, outputs, launch, ...), found byte 0x01");
	/* A continuation moves the position of what follows. */
	ONE("shapes(n=1) \\\n  shapes(m=)", "k.cu:11:12: warning: expected a value before ')'");
}

static void test_multiline(void)
{
	/* The first mistake on a line stops that line; later lines still parse. */
	struct astra_pragma p;
	struct astra_diags d;
	const char *lines[] = { "shapes(n=1) bogus shapes(n=2)", "outputs(y)", NULL };
	char *s;
	CHECK_INT(parse(&p, &d, lines), -1);
	CHECK_INT(d.nr, 1);
	CHECK_INT(p.nr_shapes, 1);
	CHECK_INT(p.nr_outputs, 1);
	s = astra_diags_format(&d);
	CHECK_STR(s, "k.cu:10:27: warning: unknown clause 'bogus'; expected optimize, off, shapes, buffers, "
		     "outputs, launch, types, scalars, range, tolerance, tune, noalias, flops or bytes\n");
	free(s);
	astra_diags_promote(&d);
	s = astra_diags_format(&d);
	CHECK(!strncmp(s, "k.cu:10:27: error: unknown", 26));
	free(s);
	astra_pragma_release(&p);
	astra_diags_release(&d);
}

/* Check a pragma against a signature; returns the diagnostics (or ""). */
static char *check(const char *line, char *const *names, const int *ptr, size_t n, char *const *tmpl,
		   size_t nt)
{
	static const int optional[] = { 0, 0, 1 };
	struct astra_pragma p;
	struct astra_diags d;
	const char *lines[] = { line, NULL };
	char *s;
	CHECK_INT(parse(&p, &d, lines), 0);
	astra_pragma_check(&p, "k.cu", names, ptr, n, tmpl, optional, nt, &d);
	s = astra_diags_format(&d);
	astra_pragma_release(&p);
	astra_diags_release(&d);
	return s;
}

/* astra_pragma_by_capture() of one parsed line. */
static int astra_pragma_by_capture_text(const char *line)
{
	struct astra_pragma p;
	struct astra_diags d;
	const char *lines[] = { line, NULL };
	int r;
	CHECK_INT(parse(&p, &d, lines), 0);
	r = astra_pragma_by_capture(&p);
	astra_pragma_release(&p);
	astra_diags_release(&d);
	return r;
}

#define CHECKED(line, want)                                          \
	do {                                                         \
		char *got_ = check(line, names, ptr, 4, NULL, 0);    \
		CHECK_STR(got_, want);                               \
		free(got_);                                          \
	} while (0)

static void test_check(void)
{
	char *names[] = { "out", "x", "n", "eps" };
	int ptr[] = { 1, 2, 0, 0 };
	char *tnames[] = { "T", "VEC", "Op" };
	char *unnamed[] = { "out", NULL };
	int uptr[] = { 1, 1 };
	char *s;

	CHECKED("shapes(n=4) buffers(out[n], x[n]) outputs(out) launch(grid=n, block=1) scalars(eps=1)", "");
	CHECKED("shapes(n=4, eps=1) shapes(n=5 eps=2 helper=3) buffers(out[n], x[n]) outputs(out) launch(grid=n, block=1) "
		"range(x: 0 .. 1) tolerance(out: rtol=1)", "");
	CHECKED("off", "");
	/* Left to a capture (doc/capture.md): nothing is missing yet, what is given is checked. */
	CHECKED("optimize", "");
	CHECKED("optimize noalias outputs(out) tolerance(out: rtol=1e-3) range(x: 0 .. 1)", "");
	/* The outputs are inferred later, so a tolerance may name a writable pointer ... */
	CHECKED("optimize noalias tolerance(out: rtol=0.01, atol=0.001)", "");
	/* ... but never a const one or a scalar. */
	CHECKED("optimize tolerance(x: atol=1) tolerance(n: atol=1)",
		"k.cu:10:34: warning: tolerance of 'x': not a pointer to non-const data, so never an output\n"
		"k.cu:10:55: warning: tolerance of 'n': not a pointer to non-const data, so never an output\n");
	CHECKED("optimize outputs(x, q)",
		"k.cu:10:32: warning: output 'x' points to const data, so the kernel cannot write it\n"
		"k.cu:10:35: warning: output 'q' is not a pointer parameter of the kernel\n");
	/* A description begun by hand must be complete. */
	CHECKED("buffers(out[n])",
		"k.cu:10:1: warning: pointer parameter 'x' has no element count; expected buffers(x[count])\n"
		"k.cu:10:1: warning: no outputs(); name the buffers the kernel writes, e.g. outputs(out)\n"
		"k.cu:10:1: warning: scalar parameter 'n' has no value; expected shapes(n=...) or scalars(n=...)\n"
		"k.cu:10:1: warning: scalar parameter 'eps' has no value; expected shapes(eps=...) or scalars(eps=...)\n"
		"k.cu:10:1: warning: no launch geometry; expected launch(grid=..., block=...)\n");
	CHECKED("shapes(n=4) shapes(eps=2) buffers(out[n], x[n], n[1], z[2]) outputs(x, q) launch(block=1) scalars(eps=1, x=2) "
		"range(zz: 0 .. 1) tolerance(x: atol=1) tolerance(n: atol=1) types(T=int)",
		"k.cu:10:63: warning: buffer 'n' is not a pointer parameter\n"
		"k.cu:10:69: warning: buffer 'z' is not a parameter of the kernel\n"
		"k.cu:10:83: warning: output 'x' points to const data, so the kernel cannot write it\n"
		"k.cu:10:86: warning: output 'q' is not a pointer parameter of the kernel\n"
		"k.cu:10:120: warning: 'x' in scalars() is not a scalar parameter of the kernel\n"
		"k.cu:10:27: warning: shapes() gives no value for scalar parameter 'n'\n"
		"k.cu:10:89: warning: no launch geometry; expected launch(grid=..., block=...)\n"
		"k.cu:10:185: warning: types() is given, but the kernel is not a template\n"
		"k.cu:10:131: warning: range of 'zz': not a parameter of the kernel\n"
		"k.cu:10:174: warning: tolerance of 'n': not one of the outputs\n");
	CHECKED("shapes(n=4, out=1) buffers(out[n], x[n]) outputs(out) launch(grid=n, block=1) scalars(eps=1)",
		"k.cu:10:27: warning: 'out' is a pointer parameter; its size goes in buffers(out[count])\n");

	s = check("buffers(out[n]) outputs(out) launch(grid=1, block=1) types(T=float, VEC=4) types(T=int, W=2)",
		  names, ptr, 1, tnames, 2);
	CHECK_STR(s, "k.cu:10:103: warning: 'W' is not a template parameter of the kernel\n"
		     "k.cu:10:90: warning: types() gives no value for template parameter 'VEC'\n");
	free(s);
	s = check("buffers(out[n]) outputs(out) launch(grid=1, block=1)", names, ptr, 1, tnames, 2);
	CHECK_STR(s, "k.cu:10:1: warning: the kernel is a template; expected types(T=..., VEC=...)\n");
	free(s);
	s = check("optimize", names, ptr, 1, tnames, 2);
	CHECK_STR(s, "");
	free(s);
	CHECK_INT(astra_pragma_by_capture_text("optimize"), 1);
	CHECK_INT(astra_pragma_by_capture_text("optimize outputs(out) noalias types(T=float)"), 1);
	CHECK_INT(astra_pragma_by_capture_text("optimize shapes(n=1)"), 0);
	CHECK_INT(astra_pragma_by_capture_text("launch(block=32)"), 0);
	CHECK_INT(astra_pragma_by_capture_text("buffers(x[4])"), 0);
	CHECK_INT(astra_pragma_by_capture_text("off"), 0);
	s = check("buffers(out[4]) outputs(out) launch(grid=1, block=1)", unnamed, uptr, 2, NULL, 0);
	CHECK_STR(s, "k.cu:10:1: warning: parameter 2 of the kernel has no name; name it so that the pragma can describe it\n");
	free(s);
}

int main(void)
{
	test_good();
	test_bad();
	test_multiline();
	test_check();
	return unit_done();
}
