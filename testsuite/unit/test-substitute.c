/*
 * test-substitute.c - the pure parts of substitution: dependency files,
 * mapping temporary names back in messages, where nvcc puts a .d file.
 * (The compile itself is tested by testsuite/cases/subst.)
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "passes/substitute.h"
#include "unit.h"

static void test_deps(void)
{
	struct astra_pathmap m;
	struct astra_buf out = ASTRA_BUF_INIT;
	/* What nvcc writes for the rewritten TU (-MP)... */
	static const char in_mp[] =
		"p.o : /tmp/astra-cc.X/src/k.cu \\\n"
		"    /usr/include/stdc-predef.h \\\n"
		"    k.cu \\\n"
		"    /cwd/./h.cuh \\\n"
		"    /tmp/astra-cc.X/h0/g.cuh \\\n"
		"    inc/g.cuh \\\n"
		"    /cwd/././sub/../x.cuh \\\n"
		"    /usr/include/c++/12/cstdio\n"
		"\n/usr/include/stdc-predef.h:\n"
		"\nk.cu:\n"
		"\n/cwd/./h.cuh:\n"
		"\n/tmp/astra-cc.X/h0/g.cuh:\n"
		"\ninc/g.cuh:\n"
		"\n/cwd/././sub/../x.cuh:\n"
		"\n/usr/include/c++/12/cstdio:\n";
	/* ... and what plain nvcc writes for the original. */
	static const char want_mp[] =
		"p.o : k.cu \\\n"
		"    /usr/include/stdc-predef.h \\\n"
		"    h.cuh \\\n"
		"    inc/g.cuh \\\n"
		"    ./sub/../x.cuh \\\n"
		"    /usr/include/c++/12/cstdio\n"
		"\n/usr/include/stdc-predef.h:\n"
		"\nh.cuh:\n"
		"\ninc/g.cuh:\n"
		"\n./sub/../x.cuh:\n"
		"\n/usr/include/c++/12/cstdio:\n";
	static const char in_plain[] =
		"a b$c : /tmp/astra-cc.X/src/k.cu \\\n    k.cu \\\n    /cwd/./h.cuh\n";

	astra_pathmap_init(&m);
	astra_pathmap_add(&m, "/cwd/./", "");
	astra_pathmap_add(&m, "/tmp/astra-cc.X/src/k.cu", "k.cu");
	astra_pathmap_add(&m, "/tmp/astra-cc.X/src/", "");
	astra_pathmap_add(&m, "/tmp/astra-cc.X/h0/g.cuh", "inc/g.cuh");

	CHECK_INT(astra_subst_fix_deps(in_mp, strlen(in_mp), &m, &out), 0);
	CHECK_STR(out.buf, want_mp);
	astra_buf_reset(&out);
	CHECK_INT(astra_subst_fix_deps(in_plain, strlen(in_plain), &m, &out), 0);
	CHECK_STR(out.buf, "a b$c : k.cu \\\n    h.cuh\n");
	astra_buf_reset(&out);
	CHECK_INT(astra_subst_fix_deps("k.o : /tmp/astra-cc.X/src/k.cu\n", 31, &m, &out), 0);
	CHECK_STR(out.buf, "k.o : k.cu\n");

	/* As ccache restores it on a hit ("T: D"): the same format comes back. */
	astra_buf_reset(&out);
	CHECK_INT(astra_subst_fix_deps("k.o: /tmp/astra-cc.X/src/k.cu \\\n    /cwd/./h.cuh\n", 49, &m, &out), 0);
	CHECK_STR(out.buf, "k.o: k.cu \\\n    h.cuh\n");

	/* Not the format we know: refuse rather than guess. */
	astra_buf_reset(&out);
	CHECK(astra_subst_fix_deps(": k.cu\n", 7, &m, &out) < 0);
	CHECK(astra_subst_fix_deps("k.o : k.cu \\\n  h.cuh\n", 21, &m, &out) < 0);
	CHECK(astra_subst_fix_deps("k.o : k.cu \\\n", 13, &m, &out) < 0);
	CHECK(astra_subst_fix_deps("k.o : k.cu \\\n    h.cuh\n\nother.h:\n", 32, &m, &out) < 0);
	CHECK(astra_subst_fix_deps("k.o : k.cu \\\n    h.cuh\nxx", 25, &m, &out) < 0);
	CHECK(astra_subst_fix_deps("", 0, &m, &out) < 0);

	/* Messages. */
	astra_buf_reset(&out);
	{
		static const char msg[] =
			"/cwd/./h.cuh(3): warning #177-D: variable \"x\" was declared but never referenced\n"
			"In file included from /tmp/astra-cc.X/src/k.cu:1:\n"
			"/tmp/astra-cc.X/h0/g.cuh:4:2: error: boom\n";
		astra_subst_map_text(msg, strlen(msg), &m, &out);
		CHECK_STR(out.buf, "h.cuh(3): warning #177-D: variable \"x\" was declared but never referenced\n"
			  "In file included from k.cu:1:\n"
			  "inc/g.cuh:4:2: error: boom\n");
	}
	astra_pathmap_release(&m);
	astra_buf_release(&out);
}

static char *depfile_for(const char *args)
{
	struct astra_cmdline cl;
	struct astra_vec v = ASTRA_VEC_INIT;
	char *d;
	astra_vec_push(&v, "nvcc");
	astra_vec_split_shell(&v, args);
	astra_cmdline_parse(&cl, (int)v.nr, v.v);
	d = astra_subst_default_depfile(&cl);
	astra_cmdline_release(&cl);
	astra_vec_clear(&v);
	return d;
}

static void test_default_depfile(void)
{
	static const char *const cases[][2] = {
		{ "-c k.cu -MD", "k.d" },
		{ "-c sub/k.cu -MD", "k.d" },
		{ "-c k.cu -MD -o out/k.o", "out/k.d" },
		{ "-c k.cu -MD -o k.obj", "k.d" },
		{ "-c k.cu -MD -o foo", "foo.d" },
		{ "-c k.cu -MD -o out/x.y.o", "out/x.y.d" },
		{ "-c k.cu -MD -o out.dir/foo", "out.dir/foo.d" },
		{ "-c k.cu -MD --output-file=o/.hidden", "o/.hidden.d" },
	};
	size_t i;
	char *d;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		d = depfile_for(cases[i][0]);
		CHECK_STR(d, cases[i][1]);
		free(d);
	}
	d = depfile_for("-c k.cu -MD -odir objs");
	CHECK(d == NULL);
	free(d);
}

int main(void)
{
	test_deps();
	test_default_depfile();
	return unit_done();
}
