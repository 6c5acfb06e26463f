/*
 * pipeline.c - the annotated-compile path (see pipeline.h).
 *
 * This file only sequences the passes; each pass lives in its own file:
 * extraction (passes/extract.c), pragma diagnostics, the kernel keys
 * (cache/key.c, with the debug_key file); lookup and substitution follow.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/config.h"
#include "astra-cc/log.h"
#include "cache/key.h"
#include "cache/stats.h"
#include "passes/extract.h"
#include "passes/includes.h"
#include "passes/pipeline.h"

int astra_pipeline_mentions_pragma(const char *path, char *const *include_dirs)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_includes inc;
	int found;
	if (astra_buf_read_file(&b, path, 0) < 0) {
		astra_buf_release(&b);
		return 0;
	}
	found = astra_text_mentions_pragma(b.buf, b.len);
	if (!found) {
		/* Kernels may live in project headers; follow the quoted includes. */
		memset(&inc, 0, sizeof(inc));
		found = astra_includes_scan(path, b.buf, b.len, include_dirs, ASTRA_INCLUDES_STOP_AT_PRAGMA,
					    &inc) > 0;
		astra_includes_release(&inc);
	}
	astra_buf_release(&b);
	return found;
}

/*
 * Pragma mistakes: in the log (stderr belongs to nvcc) and the kernel is
 * compiled unchanged; in strict mode on stderr as errors, and the compile
 * fails.  Returns 1 when the compile must fail, else 0.
 */
static int report_diags(struct astra_tu *tu)
{
	size_t i;
	if (!tu->diags.nr)
		return 0;
	astra_stats_inc(ASTRA_STAT_FALLBACK_PRAGMA);
	if (astra_config_bool(ASTRA_CFG_STRICT)) {
		char *s;
		astra_diags_promote(&tu->diags);
		s = astra_diags_format(&tu->diags);
		fputs(s, stderr);
		free(s);
		return 1;
	}
	for (i = 0; i < tu->diags.nr; i++) {
		const struct astra_diag *g = &tu->diags.items[i];
		warning("%s:%u:%u: %s", g->file, g->line, g->col, g->msg);
	}
	return 0;
}

/* Where nvcc -c writes its object: -o, or the input's base name with .o. */
static char *object_path(const struct astra_cmdline *cl)
{
	const char *base;
	size_t n;
	if (cl->output)
		return xstrdup(cl->output);
	base = astra_basename(cl->inputs.v[0]);
	n = strrchr(base, '.') ? (size_t)(strrchr(base, '.') - base) : strlen(base);
	return xasprintf("%.*s.o", (int)n, base);
}

/*
 * The keys of the kernels that may be optimized, one per target; with
 * debug_key, the hashed texts go to <output>.astra-key.txt.  Returns 0,
 * or -1 when no key can be computed (logged).
 */
static int compute_keys(struct astra_invocation *inv, const struct astra_tu *tu)
{
	struct astra_buf version = ASTRA_BUF_INIT, text = ASTRA_BUF_INIT;
	struct astra_vec archs = ASTRA_VEC_INIT;
	int debug = astra_config_bool(ASTRA_CFG_DEBUG_KEY);
	size_t i, a;

	if (astra_key_archs(&inv->cl, &archs) < 0) {
		astra_vec_clear(&archs);
		return error("%s: the GPU targets cannot be known from the command line", inv->cl.inputs.v[0]);
	}
	if (astra_key_nvcc_version(inv->nvcc, astra_config_str(ASTRA_CFG_DIR), &version) < 0) {
		astra_vec_clear(&archs);
		astra_buf_release(&version);
		return -1;
	}
	for (i = 0; i < tu->nr_kernels; i++) {
		const struct astra_kernel *k = &tu->kernels[i];
		if (k->bad_pragma || (k->pragma.flags & ASTRA_PRAGMA_OFF))
			continue;
		for (a = 0; a < archs.nr; a++) {
			struct astra_key key;
			if (debug)
				astra_buf_addf(&text, "### kernel %s (%s:%u) target %s\n", k->name, k->file, k->line,
					       archs.v[a]);
			astra_key_compute(tu, k, &inv->cl, archs.v[a], version.buf, &key, debug ? &text : NULL);
			if (debug)
				astra_buf_addf(&text, "### key %s\n\n", key.hex);
			astra_trace(ASTRA_TRACE_CACHE, "%s: kernel %s, target %s: key %s", k->file, k->name, archs.v[a],
				    key.hex);
		}
	}
	if (debug && text.len) {
		char *out = object_path(&inv->cl);
		astra_key_write_debug(out, text.buf);
		free(out);
	}
	astra_buf_release(&text);
	astra_buf_release(&version);
	astra_vec_clear(&archs);
	return 0;
}

int astra_pipeline_compile(struct astra_invocation *inv)
{
	struct astra_tu tu;
	int ret = -1;

	memset(&tu, 0, sizeof(tu));
	if (astra_extract_tu(&tu, inv->cl.inputs.v[0], &inv->cl) < 0) {
		astra_stats_inc(ASTRA_STAT_FALLBACK_PARSE);
		goto out;
	}
	if (report_diags(&tu)) {
		ret = 1;
		goto out;
	}
	if (!tu.nr_kernels)
		goto out;
	astra_stats_inc(ASTRA_STAT_ANNOTATED_COMPILES);
	astra_stats_add(ASTRA_STAT_KERNELS_SEEN, (long long)tu.nr_kernels);
	if (compute_keys(inv, &tu) < 0) {
		astra_stats_inc(ASTRA_STAT_FALLBACK_INTERNAL);
		goto out;
	}
	/* Lookup and substitution come here (cache/, passes/substitute.c). */
	astra_trace(ASTRA_TRACE_DRIVER, "%s: annotated, but substitution is not built yet", inv->cl.inputs.v[0]);
out:
	astra_tu_release(&tu);
	return ret;
}
