/* Unit tests for front/includes.c (the search path, both scans) and the driver's cheap scan. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/run.h"
#include "front/includes.h"
#include "passes/pipeline.h"
#include "testsuite/unit/unit.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(99);
	}
	fputs(text, f);
	fclose(f);
}

static const struct astra_header *find(const struct astra_includes *inc, const char *spelled)
{
	size_t i;
	for (i = 0; i < inc->nr; i++)
		if (!strcmp(inc->items[i].spelled, spelled))
			return &inc->items[i];
	return NULL;
}

static void push_dir(struct astra_search_path *sp, const char *path, unsigned flags)
{
	ALLOC_GROW(sp->dirs, sp->nr + 1, sp->alloc);
	sp->dirs[sp->nr].path = xstrdup(path);
	sp->dirs[sp->nr].flags = flags;
	sp->nr++;
}

static int scan(const char *path, const struct astra_search_path *sp, unsigned flags, struct astra_includes *inc)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	int n;
	memset(inc, 0, sizeof(*inc));
	if (astra_buf_read_file(&b, path, 0) < 0) {
		perror(path);
		exit(99);
	}
	n = astra_includes_scan(path, b.buf, b.len, sp, 1, flags, inc);
	astra_buf_release(&b);
	return n;
}

/*
 * The full scan follows -isystem, -idirafter and the host compiler's
 * headers in gcc's order, #include_next after the including header's
 * directory, -include files; the toolkit's directories stop the search
 * without being entered.  The cheap scan enters none of them.
 */
static void system_headers(const char *top)
{
	struct astra_search_path sp;
	struct astra_includes inc;
	const struct astra_header *h;
	char *p;

	if (chdir(top) < 0)
		exit(99);
	mkdir("sys", 0755);
	mkdir("sys/lib", 0755);
	mkdir("sys2", 0755);
	mkdir("after", 0755);
	mkdir("host", 0755);
	mkdir("tk", 0755);
	mkdir("proj", 0755);
	put("sys/lib/config.h", "#define SCALE 2\n#include <lib/detail.h>\n#include_next <wrap.h>\n");
	put("sys/lib/detail.h", "#define DETAIL 1\n");
	put("sys/wrap.h", "#include_next <wrap.h>\n");
	put("sys2/wrap.h", "/* the next one */\n#include <toolkit_only.h>\n");
	put("after/late.h", "#define LATE 1\n");
	put("host/stdio_like.h", "#include <bits/inner.h>\n");
	mkdir("host/bits", 0755);
	put("host/bits/inner.h", "int inner;\n");
	put("tk/toolkit_only.h", "#error never entered\n");
	put("tk/shadowed.h", "#error never entered\n");
	put("host/shadowed.h", "#error hidden behind the toolkit's\n");
	put("proj/forced.h", "#define FORCED 1\n");
	put("k.cu", "#include <lib/config.h>\n#include <wrap.h>\n#include <late.h>\n#include <stdio_like.h>\n"
		    "#include <shadowed.h>\n#include \"proj/p.h\"\n__global__ void k() {}\n");
	put("proj/p.h", "#include <late.h>\n");

	memset(&sp, 0, sizeof(sp));
	push_dir(&sp, "tk", ASTRA_DIR_TOOLKIT);
	push_dir(&sp, "sys", ASTRA_DIR_SYSTEM);
	push_dir(&sp, "sys2", ASTRA_DIR_SYSTEM);
	push_dir(&sp, "host", ASTRA_DIR_SYSTEM);
	push_dir(&sp, "after", ASTRA_DIR_SYSTEM);
	ALLOC_GROW(sp.pre_includes, 1, sp.alloc_pre);
	sp.pre_includes[sp.nr_pre++] = xstrdup("proj/forced.h");

	scan("k.cu", &sp, ASTRA_INCLUDES_MISSING | ASTRA_INCLUDES_SYSTEM, &inc);
	h = find(&inc, "lib/config.h");
	CHECK(h && h->text && h->dir == 1 && !strcmp(h->path, "sys/lib/config.h"));
	h = find(&inc, "lib/detail.h");
	CHECK(h && h->depth == 2);
	/*
	 * #include_next <wrap.h> in sys/lib/config.h (found in sys) starts
	 * after sys: sys2/wrap.h; k.cu's <wrap.h> is sys/wrap.h, whose own
	 * #include_next is sys2/wrap.h again (entered once).
	 */
	h = find(&inc, "wrap.h");
	CHECK(h && !strcmp(h->path, "sys2/wrap.h") && h->depth == 2);
	{
		size_t i, n = 0;
		for (i = 0; i < inc.nr; i++)
			n += !strcmp(inc.items[i].spelled, "wrap.h");
		CHECK_INT(n, 2);
		CHECK(inc.nr && (p = NULL, 1));
		for (i = 0; i < inc.nr; i++)
			if (inc.items[i].path && !strcmp(inc.items[i].path, "sys2/wrap.h"))
				p = inc.items[i].path;
		CHECK(p != NULL);
	}
	CHECK(find(&inc, "late.h") && find(&inc, "late.h")->dir == 4);
	CHECK(find(&inc, "bits/inner.h") != NULL);
	/*
	 * Where each header was first included: the includer's index (-1:
	 * the main file) and the offset of the #include line in its text.
	 */
	h = find(&inc, "lib/config.h");
	CHECK(h && h->parent == -1 && h->at == 0);
	h = find(&inc, "lib/detail.h");
	CHECK(h && h->parent >= 0 && !strcmp(inc.items[h->parent].spelled, "lib/config.h") &&
	      h->at == strlen("#define SCALE 2\n"));
	h = find(&inc, "proj/p.h");
	CHECK(h && h->parent == -1 && h->at == strlen("#include <lib/config.h>\n#include <wrap.h>\n#include "
						      "<late.h>\n#include <stdio_like.h>\n#include <shadowed.h>\n"));
	h = find(&inc, "bits/inner.h");
	CHECK(h && h->parent >= 0 && !strcmp(inc.items[h->parent].spelled, "stdio_like.h") && h->at == 0);
	CHECK(inc.nr && inc.items[0].parent == -1 && inc.items[0].at == 0); /* -include */
	/* The toolkit's headers stop the search and are not entered. */
	CHECK(find(&inc, "toolkit_only.h") == NULL);
	CHECK(find(&inc, "shadowed.h") == NULL);
	/* -include files come first, at depth 1. */
	CHECK(inc.nr && !strcmp(inc.items[0].spelled, "proj/forced.h") && inc.items[0].depth == 1);
	CHECK(!inc.truncated);
	astra_includes_release(&inc);

	/* The cheap scan: project headers only. */
	scan("k.cu", &sp, ASTRA_INCLUDES_MISSING, &inc);
	CHECK(find(&inc, "lib/config.h") == NULL);
	CHECK(find(&inc, "late.h") == NULL);
	CHECK(find(&inc, "proj/p.h") != NULL);
	CHECK(find(&inc, "proj/forced.h") != NULL);
	astra_includes_release(&inc);
	astra_search_path_release(&sp);
}

/* The search path from a command line: classes in gcc's order, nvcc's lists split. */
static void command_lines(const char *top)
{
	char *argv[] = { "nvcc", "-c", "k.cu", "-I", "a,b", "-isystem", "s1", "-Xcompiler", "-idirafter,late",
			 "-Xcompiler", "-iquote,q,-Ixi,-isystem,xs", "-Ic", "-include", "f.h", NULL };
	struct astra_cmdline cl;
	struct astra_search_path sp;
	static const char *const want[] = { "q", "xi", "a", "b", "c", "xs", "s1", "late" };
	static const unsigned want_flags[] = { ASTRA_DIR_QUOTE, 0, 0, 0, 0, ASTRA_DIR_SYSTEM, ASTRA_DIR_SYSTEM,
					       ASTRA_DIR_SYSTEM };
	size_t i;
	(void)top;
	memset(&sp, 0, sizeof(sp));
	astra_cmdline_parse(&cl, (int)ARRAY_SIZE(argv) - 1, argv);
	astra_search_path_from_cmdline(&cl, &sp);
	CHECK_INT(sp.nr, ARRAY_SIZE(want));
	for (i = 0; i < sp.nr && i < ARRAY_SIZE(want); i++) {
		CHECK_STR(sp.dirs[i].path, want[i]);
		CHECK_INT(sp.dirs[i].flags, want_flags[i]);
	}
	CHECK_INT(sp.nr_pre, 1);
	CHECK(sp.nr_pre && !strcmp(sp.pre_includes[0], "f.h"));
	CHECK(!sp.host_known && !sp.host_id);
	astra_search_path_release(&sp);
	astra_cmdline_release(&cl);
}

/*
 * The toolchain: the toolkit's include directories from where nvcc sits,
 * the host compiler's directories and version from its -v report (a fake
 * compiler here, named by -ccbin), remembered in the cache directory.
 */
static void toolchain(const char *top)
{
	struct astra_search_path sp;
	struct astra_cmdline cl;
	char *argv[] = { "nvcc", "-c", "k.cu", "-Iproj", "-ccbin", NULL, NULL };
	char *cc, *nvcc, *tk, *memo;
	size_t i;
	long host_at = -1, tk_at = -1, proj_at = -1;

	if (chdir(top) < 0)
		exit(99);
	mkdir("cuda", 0755);
	mkdir("cuda/bin", 0755);
	mkdir("cuda/targets", 0755);
	mkdir("cuda/targets/x86_64-linux", 0755);
	mkdir("cuda/targets/x86_64-linux/include", 0755);
	put("cuda/bin/nvcc", "#!/bin/sh\nexit 0\n");
	chmod("cuda/bin/nvcc", 0755);
	cc = xasprintf("%s/fake-cc", top);
	put(cc, "#!/bin/sh\necho run >> cc-runs\n"
		"cat >&2 <<EOF\nUsing built-in specs.\nfake version 1.2.3 (test)\n"
		"#include \"...\" search starts here:\n#include <...> search starts here:\n"
		" /nonexistent/host/include\n /nonexistent/Frameworks (framework directory)\nEnd of search list.\nEOF\n");
	chmod(cc, 0755);
	argv[5] = cc;
	astra_cmdline_parse(&cl, (int)ARRAY_SIZE(argv) - 1, argv);
	nvcc = xasprintf("%s/cuda/bin/nvcc", top);
	memo = xasprintf("%s/memo", top);
	memset(&sp, 0, sizeof(sp));
	CHECK_INT(astra_search_path_add_toolchain(&sp, &cl, nvcc, memo), 0);
	CHECK(sp.host_known);
	CHECK_STR(sp.host_id, "fake version 1.2.3 (test)");
	tk = realpath("cuda/targets/x86_64-linux/include", NULL);
	CHECK(sp.nr_toolkit >= 1 && tk && !strcmp(sp.toolkit[0], tk));
	for (i = 0; i < sp.nr; i++) {
		if (!strcmp(sp.dirs[i].path, "/nonexistent/host/include"))
			host_at = (long)i;
		if (tk && !strcmp(sp.dirs[i].path, tk) && (sp.dirs[i].flags & ASTRA_DIR_TOOLKIT))
			tk_at = (long)i;
		if (!strcmp(sp.dirs[i].path, "proj"))
			proj_at = (long)i;
		CHECK(strcmp(sp.dirs[i].path, "/nonexistent/Frameworks (framework directory)"));
	}
	CHECK(proj_at >= 0 && tk_at > proj_at && host_at > tk_at);
	CHECK(host_at >= 0 && sp.dirs[host_at].flags == ASTRA_DIR_SYSTEM);
	astra_search_path_release(&sp);
	/* Asked once: the second time the answer comes from the memo. */
	memset(&sp, 0, sizeof(sp));
	CHECK_INT(astra_search_path_add_toolchain(&sp, &cl, nvcc, memo), 0);
	CHECK_STR(sp.host_id, "fake version 1.2.3 (test)");
	{
		struct astra_buf runs = ASTRA_BUF_INIT;
		CHECK(astra_buf_read_file(&runs, "cc-runs", 0) == 0 && !strcmp(runs.buf, "run\n"));
		astra_buf_release(&runs);
	}
	astra_search_path_release(&sp);
	/* A compiler that says nothing useful: no host directories, and the key will refuse. */
	put(cc, "#!/bin/sh\necho nothing >&2\n");
	memset(&sp, 0, sizeof(sp));
	CHECK_INT(astra_search_path_add_toolchain(&sp, &cl, nvcc, NULL), -1);
	CHECK(!sp.host_known && !sp.host_id);
	astra_search_path_release(&sp);
	astra_cmdline_release(&cl);
	free(tk);
	free(cc);
	free(nvcc);
	free(memo);
}

int main(void)
{
	char tmpl[] = "/tmp/astra-includes-XXXXXX";
	char *dir = mkdtemp(tmpl), *inc_dir, *main_cu, *loop_a, *plain_cu;
	struct astra_search_path sp;
	struct astra_includes inc;
	struct astra_buf b = ASTRA_BUF_INIT;
	const struct astra_header *h;

	if (!dir)
		return 99;
	if (chdir(dir) < 0)
		return 99;
	mkdir("src", 0755);
	mkdir("include", 0755);
	mkdir("include/lib", 0755);
	inc_dir = xasprintf("%s/include", dir);
	main_cu = "src/k.cu";
	put(main_cu, "#include <cuda_runtime.h>\n"
		     "  #  include \"local.cuh\"  // a comment\n"
		     "#include <lib/kern.cuh>\n"
		     "#include \"missing.h\"\n"
		     "/* #include \"commented.h\" */\n"
		     "/*\n#include \"in-comment.h\"\n*/\n"
		     "#include HEADER_FROM_MACRO\n"
		     "#include </usr/include/stdio.h>\n"
		     "int x;\n");
	put("src/local.cuh", "#pragma once\n#include \"a.h\"\n#include \"local.cuh\"\n");
	put("src/a.h", "#include \"b.h\"\n");
	put("src/b.h", "#include \"a.h\"\n"); /* a cycle */
	put("src/commented.h", "");
	put("src/in-comment.h", "");
	put("include/lib/kern.cuh", "#include \"helper.h\"\n#pragma  astra shapes(n=1)\n");
	put("include/lib/helper.h", "int helper;\n");
	loop_a = xstrdup("src/deep0.h");
	plain_cu = "src/plain.cu";
	put(plain_cu, "#include \"a.h\"\n#include <lib/helper.h>\nint main() {}\n");

	memset(&sp, 0, sizeof(sp));
	push_dir(&sp, "/usr/local/cuda/include", 0);
	push_dir(&sp, inc_dir, 0);

	CHECK(astra_text_mentions_pragma("x\n#pragma\tastra optimize", 24));
	CHECK(!astra_text_mentions_pragma("#pragma once\n#pragma unroll astra", 34));
	CHECK(!astra_text_mentions_pragma("#pragma astr", 12));
	/* The annotation macro, first on its line. */
	CHECK(astra_text_mentions_pragma("x\n  ASTRA (optimize)\n", 20));
	CHECK(astra_text_mentions_pragma("ASTRA(optimize)", 15));
	CHECK(!astra_text_mentions_pragma("x = ASTRA(1);\n", 14));
	CHECK(!astra_text_mentions_pragma("MY_ASTRA(1)\nASTRA_X(2)\nASTRA\n", 29));

	CHECK(astra_buf_read_file(&b, main_cu, 0) == 0);
	memset(&inc, 0, sizeof(inc));
	CHECK_INT(astra_includes_scan(main_cu, b.buf, b.len, &sp, 1, ASTRA_INCLUDES_MISSING, &inc), 1);
	CHECK_INT(inc.nr, 7);
	CHECK(find(&inc, "cuda_runtime.h") == NULL);
	h = find(&inc, "local.cuh");
	CHECK(h && h->depth == 1 && !h->has_pragma && !strcmp(h->path, "src/local.cuh"));
	h = find(&inc, "a.h");
	CHECK(h && h->depth == 2 && !strcmp(h->path, "src/a.h"));
	h = find(&inc, "b.h");
	CHECK(h && h->depth == 3);
	h = find(&inc, "lib/kern.cuh");
	CHECK(h && h->has_pragma && h->depth == 1);
	h = find(&inc, "helper.h");
	CHECK(h && h->depth == 2 && astra_ends_with(h->path, "include/lib/helper.h"));
	h = find(&inc, "missing.h");
	CHECK(h && h->text == NULL && h->path == NULL);
	/* A line that starts a comment is not a directive; a directive line
	 * inside a block comment is followed (an over-approximation). */
	CHECK(find(&inc, "commented.h") == NULL);
	CHECK(find(&inc, "in-comment.h") != NULL);
	CHECK(find(&inc, "/usr/include/stdio.h") == NULL);
	CHECK(!inc.truncated);
	astra_includes_release(&inc);

	/* Without the -I directory, <lib/kern.cuh> is not found. */
	memset(&inc, 0, sizeof(inc));
	CHECK_INT(astra_includes_scan(main_cu, b.buf, b.len, NULL, 1, 0, &inc), 0);
	CHECK(find(&inc, "lib/kern.cuh") == NULL);
	CHECK(find(&inc, "missing.h") == NULL);
	astra_includes_release(&inc);
	astra_buf_release(&b);

	/* The cheap scan. */
	CHECK_INT(astra_pipeline_mentions_pragma(main_cu, &sp), 1);
	CHECK_INT(astra_pipeline_mentions_pragma(main_cu, NULL), 0);
	CHECK_INT(astra_pipeline_mentions_pragma(plain_cu, &sp), 0);
	CHECK_INT(astra_pipeline_mentions_pragma("src/nonexistent.cu", &sp), 0);

	/* The depth limit. */
	{
		int i;
		for (i = 0; i < ASTRA_INCLUDES_MAX_DEPTH + 5; i++) {
			char *name = xasprintf("src/deep%d.h", i);
			char *text = xasprintf("#include \"deep%d.h\"\n", i + 1);
			put(name, text);
			free(name);
			free(text);
		}
		put("src/deep.cu", "#include \"deep0.h\"\n");
		CHECK(astra_buf_read_file(&b, "src/deep.cu", 0) == 0);
		memset(&inc, 0, sizeof(inc));
		astra_includes_scan("src/deep.cu", b.buf, b.len, NULL, 1, 0, &inc);
		CHECK_INT(inc.nr, ASTRA_INCLUDES_MAX_DEPTH);
		CHECK(inc.truncated);
		astra_includes_release(&inc);
		astra_buf_release(&b);
	}

	astra_search_path_release(&sp);
	system_headers(dir);
	command_lines(dir);
	toolchain(dir);

	{
		/* Clean up. */
		char *cmd[] = { "rm", "-rf", dir, NULL };
		struct astra_run_opts o;
		memset(&o, 0, sizeof(o));
		o.quiet = 1;
		CHECK_INT(astra_run(cmd, &o), 0);
	}
	free(inc_dir);
	free(loop_a);
	return unit_done();
}
