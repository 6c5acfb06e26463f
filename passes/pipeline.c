/*
 * pipeline.c - the annotated-compile path (see pipeline.h).
 *
 * This file only sequences the passes; each pass lives in its own file:
 * extraction (passes/extract.c), pragma diagnostics, the kernel keys
 * (cache/key.c, with the debug_key file), the cache lookup (cache/store.c)
 * and substitution of the verified variants (passes/substitute.c).
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/config.h"
#include "astra-cc/log.h"
#include "cache/key.h"
#include "cache/store.h"
#include "cache/stats.h"
#include "passes/extract.h"
#include "passes/includes.h"
#include "passes/pipeline.h"
#include "passes/substitute.h"

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

/* One kernel's key for one target. */
struct kernel_key {
	size_t kernel;            /* index in tu->kernels */
	char *arch;               /* "sm_90", "default", ... */
	struct astra_key key;
};

/*
 * The keys of the kernels that may be optimized, one per target, appended
 * to *keys; with debug_key, the hashed texts go to <output>.astra-key.txt.
 * Returns 0, or -1 when no key can be computed (logged).
 */
static int compute_keys(struct astra_invocation *inv, const struct astra_tu *tu, struct kernel_key **keys,
			size_t *nr_keys)
{
	size_t alloc_keys = 0;
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
			ALLOC_GROW(*keys, *nr_keys + 1, alloc_keys);
			(*keys)[*nr_keys].kernel = i;
			(*keys)[*nr_keys].arch = xstrdup(archs.v[a]);
			(*keys)[*nr_keys].key = key;
			(*nr_keys)++;
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

/* The compute capability of a target ("sm_90a" -> 90), or 0 ("default", "compute_90"). */
static int arch_cc(const char *arch)
{
	return astra_starts_with(arch, "sm_") ? atoi(arch + 3) : 0;
}

/*
 * Look every key up; compile the kernels whose verdict is `faster` as
 * their variants (each only on the architectures it was verified for).
 * One variant per kernel: when targets hold different variants, the first
 * target's is used where its text is the same, the original elsewhere.
 * Returns nvcc's status when it compiled the substituted TU, else -1.
 */
static int substitute_hits(struct astra_invocation *inv, const struct astra_tu *tu, const struct kernel_key *keys,
			   size_t nr_keys)
{
	struct astra_cache *cache = astra_cache_open(NULL);
	struct astra_subst *subs = xcalloc(tu->nr_kernels + 1, sizeof(*subs));
	struct astra_variant *vars = xcalloc(tu->nr_kernels + 1, sizeof(*vars));
	int **ccs = xcalloc(tu->nr_kernels + 1, sizeof(*ccs));
	size_t i, k, nr_subs = 0;
	int ret = -1;

	for (k = 0; k < tu->nr_kernels; k++) {
		const struct astra_kernel *kern = &tu->kernels[k];
		struct astra_variant *v = &vars[nr_subs];
		size_t n = 0;
		for (i = 0; i < nr_keys; i++) {
			struct astra_entry e;
			int cc = arch_cc(keys[i].arch);
			if (keys[i].kernel != k || !cc)
				continue;
			astra_entry_init(&e);
			if (astra_cache_lookup(cache, keys[i].key.hex, cc, &e) == 1 && e.verdict == ASTRA_VERDICT_FASTER &&
			    e.variant && (!v->text || !strcmp(v->text, e.variant))) {
				if (!v->text) {
					v->text = xstrdup(e.variant);
					v->origin = e.origin ? xstrdup(e.origin) : NULL;
					ccs[nr_subs] = xcalloc(nr_keys + 1, sizeof(int));
				}
				ccs[nr_subs][n++] = cc;
			}
			astra_entry_release(&e);
		}
		if (!v->text)
			continue;
		{
			/* Cached variants passed the gate; this also reads their geometry. */
			struct astra_buf why = ASTRA_BUF_INIT;
			if (astra_extract_candidate(kern, v, NULL, &why) < 0) {
				warning("%s: the cached variant of %s is not acceptable:\n%s", kern->file, kern->name, why.buf);
				astra_buf_release(&why);
				astra_variant_release(v);
				free(ccs[nr_subs]);
				ccs[nr_subs] = NULL;
				continue;
			}
			astra_buf_release(&why);
		}
		subs[nr_subs].kernel = kern;
		subs[nr_subs].variant = v;
		subs[nr_subs].ccs = ccs[nr_subs];
		subs[nr_subs].nr_ccs = n;
		nr_subs++;
	}
	astra_cache_close(cache);
	if (nr_subs)
		ret = astra_subst_compile(inv, tu, subs, nr_subs, NULL);
	for (i = 0; i < nr_subs; i++) {
		astra_variant_release(&vars[i]);
		free(ccs[i]);
	}
	free(subs);
	free(vars);
	free(ccs);
	return ret;
}

int astra_pipeline_compile(struct astra_invocation *inv)
{
	struct astra_tu tu;
	struct kernel_key *keys = NULL;
	size_t nr_keys = 0, i;
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
	if (compute_keys(inv, &tu, &keys, &nr_keys) < 0) {
		astra_stats_inc(ASTRA_STAT_FALLBACK_INTERNAL);
		goto out;
	}
	/* Misses: queued for warmup or optimized now, per mode (agents/). */
	ret = substitute_hits(inv, &tu, keys, nr_keys);
out:
	for (i = 0; i < nr_keys; i++)
		free(keys[i].arch);
	free(keys);
	astra_tu_release(&tu);
	return ret;
}
