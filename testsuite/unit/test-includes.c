/* Unit tests for passes/includes.c and the driver's cheap scan. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "astra-cc/buf.h"
#include "astra-cc/run.h"
#include "passes/includes.h"
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

int main(void)
{
	char tmpl[] = "/tmp/astra-includes-XXXXXX";
	char *dir = mkdtemp(tmpl), *inc_dir, *main_cu, *loop_a, *plain_cu;
	char *dirs[3];
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

	dirs[0] = "/usr/local/cuda/include";
	dirs[1] = inc_dir;
	dirs[2] = NULL;

	CHECK(astra_text_mentions_pragma("x\n#pragma\tastra optimize", 24));
	CHECK(!astra_text_mentions_pragma("#pragma once\n#pragma unroll astra", 34));
	CHECK(!astra_text_mentions_pragma("#pragma astr", 12));

	CHECK(astra_buf_read_file(&b, main_cu, 0) == 0);
	memset(&inc, 0, sizeof(inc));
	CHECK_INT(astra_includes_scan(main_cu, b.buf, b.len, dirs, ASTRA_INCLUDES_MISSING, &inc), 1);
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
	CHECK_INT(astra_includes_scan(main_cu, b.buf, b.len, NULL, 0, &inc), 0);
	CHECK(find(&inc, "lib/kern.cuh") == NULL);
	CHECK(find(&inc, "missing.h") == NULL);
	astra_includes_release(&inc);
	astra_buf_release(&b);

	/* The cheap scan. */
	CHECK_INT(astra_pipeline_mentions_pragma(main_cu, dirs), 1);
	CHECK_INT(astra_pipeline_mentions_pragma(main_cu, NULL), 0);
	CHECK_INT(astra_pipeline_mentions_pragma(plain_cu, dirs), 0);
	CHECK_INT(astra_pipeline_mentions_pragma("src/nonexistent.cu", dirs), 0);

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
		astra_includes_scan("src/deep.cu", b.buf, b.len, NULL, 0, &inc);
		CHECK_INT(inc.nr, ASTRA_INCLUDES_MAX_DEPTH);
		CHECK(inc.truncated);
		astra_includes_release(&inc);
		astra_buf_release(&b);
	}

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
