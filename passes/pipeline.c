/*
 * pipeline.c - the annotated-compile path (see pipeline.h).
 *
 * This file only sequences the passes; each pass lives in its own file:
 * extraction (front/extract.c), pragma diagnostics, the kernel keys
 * (front/key.c, with the debug_key file), the lookups (cache/store.c) and
 * the policy on a miss (queue for warmup, or the loop in agents/loop.c),
 * and substitution (passes/substitute.c).
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "front/key.h"
#include "cache/lock.h"
#include "cache/capture.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "passes/capture.h"
#include "passes/dispatch.h"
#include "passes/substitute.h"
#include "front/extract.h"
#include "front/includes.h"
#include "passes/pipeline.h"

int astra_pipeline_mentions_pragma(const char *path, const struct astra_search_path *sp)
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
		found = astra_includes_scan(path, b.buf, b.len, sp, 1, ASTRA_INCLUDES_STOP_AT_PRAGMA, &inc) > 0;
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

/* What the lookups found for one kernel. */
struct found {
	const struct astra_kernel *kernel;
	struct astra_variant variant;   /* the variant to substitute (text NULL: none) */
	int ccs[16];                    /* the architectures it was verified for */
	size_t nr_ccs;
	/* A variant set (shape dispatch): variant is then a copy of variants[0]. */
	struct astra_variant *variants;
	size_t nr_variants;
	struct astra_dispatch dispatch;
	int has_dispatch;
};

static void found_release(struct found *f)
{
	size_t i;
	astra_variant_release(&f->variant);
	for (i = 0; i < f->nr_variants; i++)
		astra_variant_release(&f->variants[i]);
	free(f->variants);
	if (f->has_dispatch)
		astra_dispatch_release(&f->dispatch);
}

/*
 * The candidate check of a looked-up entry's variants (the verifier's gate
 * again, astra_extract_candidate: the stored text must be the kernel, with
 * its name and signature, and nothing else), made by the cache on each
 * entry it reads (astra_cache_lookup_checked), so that an entry that fails
 * it is removed and missed instead of hit.  What it parsed (the launch
 * geometry) is kept for take_entry.
 */
struct checked {
	const struct astra_kernel *kernel;
	struct astra_variant *v; /* the entry's variants, parsed */
	size_t nr;
};

static void checked_reset(struct checked *c)
{
	size_t i;
	for (i = 0; i < c->nr; i++)
		astra_variant_release(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->nr = 0;
}

static int check_entry(const struct astra_entry *e, void *ctx, struct astra_buf *why)
{
	struct checked *c = ctx;
	int set = astra_entry_is_dispatch(e);
	size_t i, n = set ? e->nr_variants : 1;
	checked_reset(c);
	if (e->verdict != ASTRA_VERDICT_FASTER || (!set && !e->variant))
		return 0;
	c->v = xcalloc(n, sizeof(*c->v));
	c->nr = n;
	for (i = 0; i < n; i++) {
		c->v[i].text = set ? xstrndup(e->variants[i].text, e->variants[i].len) : xstrdup(e->variant);
		if (astra_extract_candidate(c->kernel, &c->v[i], NULL, why) < 0) {
			checked_reset(c);
			return -1;
		}
	}
	return 0;
}

/*
 * The i-th variant of the entry, text len bytes, parsed into out: what
 * check_entry parsed, or (an entry the optimization loop has just made,
 * which the cache did not check) parsed now.  0, or -1 (logged).
 */
static int take_parsed(struct checked *chk, size_t i, const char *text, size_t len, struct astra_variant *out)
{
	struct astra_buf why = ASTRA_BUF_INIT;
	if (i < chk->nr && chk->v[i].text && strlen(chk->v[i].text) == len && !memcmp(chk->v[i].text, text, len)) {
		*out = chk->v[i];
		memset(&chk->v[i], 0, sizeof(chk->v[i]));
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->text = xstrndup(text, len);
	if (astra_extract_candidate(chk->kernel, out, NULL, &why) == 0) {
		astra_buf_release(&why);
		return 0;
	}
	astra_buf_rtrim(&why);
	warning("%s: the variant of %s fails the candidate check (%s); compiling the original", chk->kernel->file,
		chk->kernel->name, why.buf);
	astra_buf_release(&why);
	astra_variant_release(out);
	return -1;
}

static void variant_copy(struct astra_variant *to, const struct astra_variant *from)
{
	to->text = xstrdup(from->text);
	to->grid = from->grid ? xstrdup(from->grid) : NULL;
	to->block = from->block ? xstrdup(from->block) : NULL;
	to->shmem = from->shmem ? xstrdup(from->shmem) : NULL;
	to->origin = from->origin ? xstrdup(from->origin) : NULL;
}

/*
 * Take what entry e holds for f's kernel, or check that it is what f
 * already holds (another architecture's entry: the same variant, or the
 * same variant set with the same choice).  Returns 1 when e's variant(s)
 * are f's, 0 otherwise.  chk: what the candidate check parsed.
 */
static int take_entry(struct found *f, const struct astra_entry *e, struct checked *chk)
{
	size_t i;
	if (!astra_entry_is_dispatch(e)) {
		if (!e->variant || f->has_dispatch)
			return 0;
		if (f->variant.text)
			return !strcmp(f->variant.text, e->variant);
		if (take_parsed(chk, 0, e->variant, strlen(e->variant), &f->variant) < 0)
			return 0;
		f->variant.origin = e->origin ? xstrdup(e->origin) : NULL;
		return 1;
	}
	if (f->variant.text && !f->has_dispatch)
		return 0;
	{
		struct astra_dispatch d;
		struct astra_variant *v;
		const char *why = "";
		if (astra_dispatch_from_entry(&d, e, &why) < 0) {
			warning("%s: the cached variant set of %s cannot be used (%s)", f->kernel->file, f->kernel->name,
				why);
			return 0;
		}
		if (f->has_dispatch) {
			int same = f->nr_variants == e->nr_variants && astra_dispatch_equal(&f->dispatch, &d);
			for (i = 0; same && i < e->nr_variants; i++)
				same = strlen(f->variants[i].text) == e->variants[i].len &&
				       !memcmp(f->variants[i].text, e->variants[i].text, e->variants[i].len);
			astra_dispatch_release(&d);
			return same;
		}
		v = xcalloc(e->nr_variants, sizeof(*v));
		for (i = 0; i < e->nr_variants; i++) {
			if (take_parsed(chk, i, e->variants[i].text, e->variants[i].len, &v[i]) < 0) {
				while (i-- > 0)
					astra_variant_release(&v[i]);
				free(v);
				astra_dispatch_release(&d);
				return 0;
			}
			v[i].origin = e->variants[i].origin ? xstrdup(e->variants[i].origin) : NULL;
		}
		f->dispatch = d;
		f->has_dispatch = 1;
		f->variants = v;
	}
	f->nr_variants = e->nr_variants;
	variant_copy(&f->variant, &f->variants[0]);
	return 1;
}

void astra_pipeline_queue_for_warmup(struct astra_cache *cache, const struct astra_invocation *inv,
				     const struct astra_kernel *k, const char *key, int cc)
{
	struct astra_warmup_item it;
	char cwd[4096];
	astra_warmup_item_init(&it);
	it.key = xstrdup(key);
	it.cc = cc;
	it.kernel = xstrdup(k->name);
	it.source = xstrdup(inv->cl.inputs.v[0]);
	it.cwd = xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	astra_vec_pushv(&it.argv, inv->argv.v, inv->argv.nr);
	astra_cache_queue_add(cache, &it); /* counts ASTRA_STAT_QUEUED */
	astra_warmup_item_release(&it);
}

/* The `optimize` policy, when the driver registered one. */
static astra_pipeline_optimize_fn optimize_now;

void astra_pipeline_set_optimizer(astra_pipeline_optimize_fn fn)
{
	optimize_now = fn;
}

/*
 * For each annotated kernel and each target the command compiles for:
 * compute the key, look it up, and on a miss act on the policy (queue for
 * warmup, or optimize now).  Fills found[] with the variants to
 * substitute.  With debug_key, the hashed texts go to
 * <output>.astra-key.txt.  Returns the number of kernels with a variant, or
 * -1 when no key can be computed (logged).  dry: only look (no queueing, no
 * optimization, no debug_key file; for astra_pipeline_describe).
 */
static int look_up(struct astra_invocation *inv, const struct astra_tu *tu, struct found *found, int dry)
{
	struct astra_buf version = ASTRA_BUF_INIT, text = ASTRA_BUF_INIT;
	struct astra_vec archs = ASTRA_VEC_INIT;
	int debug = astra_config_bool(ASTRA_CFG_DEBUG_KEY);
	enum astra_mode mode = astra_config_mode();
	struct astra_cache *cache;
	size_t i, a;
	int nr_found = 0;

	if (astra_arch_targets(&inv->cl, &archs) < 0) {
		astra_vec_clear(&archs);
		return error("%s: the GPU targets cannot be known from the command line", inv->cl.inputs.v[0]);
	}
	if (astra_key_nvcc_version(inv->nvcc, astra_config_str(ASTRA_CFG_DIR), &version) < 0) {
		astra_vec_clear(&archs);
		astra_buf_release(&version);
		return -1;
	}
	cache = astra_cache_open(NULL);
	for (i = 0; i < tu->nr_kernels; i++) {
		const struct astra_kernel *k = &tu->kernels[i];
		struct found *f = &found[i];
		struct checked chk = { k, NULL, 0 };
		f->kernel = k;
		if (k->bad_pragma || (k->pragma.flags & ASTRA_PRAGMA_OFF))
			continue;
		/* Highest architecture first: its variant is the one substituted. */
		for (a = archs.nr; a-- > 0;) {
			struct astra_key key;
			struct astra_entry e;
			int cc = astra_arch_cc(archs.v[a]), hit;
			if (debug)
				astra_buf_addf(&text, "### kernel %s (%s:%u) target %s\n", k->name, k->file, k->line,
					       archs.v[a]);
			if (astra_key_compute(tu, k, &inv->cl, archs.v[a], version.buf, &key, debug ? &text : NULL) < 0)
				break;
			if (debug)
				astra_buf_addf(&text, "### key %s\n\n", key.hex);
			astra_trace(ASTRA_TRACE_CACHE, "%s: kernel %s, target %s: key %s", k->file, k->name, archs.v[a],
				    key.hex);
			if (!cc) {
				if (!strcmp(archs.v[a], "default") && !dry)
					astra_log(ASTRA_LOG_INFO,
						  "%s:%u: kernel %s: the command has no target option (nvcc's default target, "
						  "run through the driver's compile of its PTX): variants are verified for "
						  "one architecture, so the original is compiled; give -arch=sm_XX to have "
						  "them substituted (a capture build of this command records for its GPU)",
						  k->file, k->line, k->name);
				continue;
			}
			astra_entry_init(&e);
			/* A variant that fails the candidate check is a corrupt entry: removed, a miss. */
			hit = astra_cache_lookup_checked(cache, key.hex, cc, &e, check_entry, &chk) == 1;
			if (!hit && !dry && mode == ASTRA_MODE_OPTIMIZE && optimize_now)
				hit = optimize_now(cache, inv, tu, k, archs.v[a], key.hex, cc, version.buf, &e) == 1;
			/* Not optimized here (mode=use, no GPU, another architecture): later. */
			if (!hit && !dry)
				astra_pipeline_queue_for_warmup(cache, inv, k, key.hex, cc);
			if (!hit && astra_pragma_by_capture(&k->pragma) && !astra_capture_present(cache, key.hex, cc))
				astra_log(ASTRA_LOG_INFO,
					  "%s:%u: kernel %s has no test description (`#pragma astra optimize` alone) and "
					  "nothing is captured for %s: build with ASTRA_CC_CAPTURE=1 (or `astra-cc --capture "
					  "-- <nvcc command>`), run the program once, then `astra-cc --warmup` (doc/capture.md)",
					  k->file, k->line, k->name, archs.v[a]);
			if (hit && e.verdict == ASTRA_VERDICT_FASTER && f->nr_ccs < ARRAY_SIZE(f->ccs)) {
				/*
				 * One variant (or variant set) per kernel: the
				 * highest architecture's.  Other architectures use
				 * it only if theirs is the very same text (and the
				 * same choice).
				 */
				int first = !f->variant.text;
				if (take_entry(f, &e, &chk)) {
					f->ccs[f->nr_ccs++] = cc;
					nr_found += first;
				}
			}
			astra_entry_release(&e);
			checked_reset(&chk);
		}
	}
	astra_cache_close(cache);
	if (debug && text.len && !dry) {
		char *out = object_path(&inv->cl);
		astra_key_write_debug(out, text.buf);
		free(out);
	}
	astra_buf_release(&text);
	astra_buf_release(&version);
	astra_vec_clear(&archs);
	return nr_found;
}

int astra_pipeline_compile(struct astra_invocation *inv)
{
	struct astra_tu tu;
	struct astra_search_path sp;
	struct found *found = NULL;
	int ret = -1, n;

	memset(&tu, 0, sizeof(tu));
	memset(&sp, 0, sizeof(sp));
	/* Without the host compiler's directories no key is complete (key.c refuses). */
	astra_search_path_add_toolchain(&sp, &inv->cl, inv->nvcc, astra_config_str(ASTRA_CFG_DIR));
	tu.search = &sp;
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
	if (astra_config_bool(ASTRA_CFG_CAPTURE)) {
		/* A capture build records launches and substitutes nothing (passes/capture.h). */
		ret = astra_capture_compile(inv, &tu, NULL);
		goto out;
	}
	found = xcalloc(tu.nr_kernels, sizeof(*found));
	n = look_up(inv, &tu, found, 0);
	if (n < 0) {
		astra_stats_inc(ASTRA_STAT_FALLBACK_INTERNAL);
		goto out;
	}
	if (n > 0) {
		struct astra_subst *subs = xcalloc((size_t)n, sizeof(*subs));
		size_t i, m = 0;
		for (i = 0; i < tu.nr_kernels; i++) {
			if (!found[i].variant.text)
				continue;
			/* The candidate check ran on the lookup (check_entry, take_entry). */
			subs[m].kernel = found[i].kernel;
			subs[m].variant = &found[i].variant;
			subs[m].ccs = found[i].ccs;
			subs[m].nr_ccs = found[i].nr_ccs;
			if (found[i].has_dispatch) {
				subs[m].variants = found[i].variants;
				subs[m].nr_variants = found[i].nr_variants;
				subs[m].dispatch = &found[i].dispatch;
				astra_trace(ASTRA_TRACE_DRIVER, "%s: %s: %zu variants, chosen per launch",
					    inv->cl.inputs.v[0], found[i].kernel->name, found[i].nr_variants);
			}
			m++;
		}
		if (m)
			ret = astra_subst_compile(inv, &tu, subs, m, NULL);
		free(subs);
	}
out:
	if (found) {
		size_t i;
		for (i = 0; i < tu.nr_kernels; i++)
			found_release(&found[i]);
		free(found);
	}
	astra_tu_release(&tu);
	astra_search_path_release(&sp);
	return ret;
}

int astra_pipeline_describe(struct astra_invocation *inv, struct astra_buf *out)
{
	struct astra_tu tu;
	struct astra_search_path sp;
	struct found *found = NULL;
	struct astra_buf version = ASTRA_BUF_INIT;
	size_t i, c;
	int n = 0;

	/*
	 * Only what the object depends on: nvcc, and what is substituted.
	 * Whatever the reason nothing is (disabled, mode=off, a miss, a file
	 * astra-cc cannot parse), the object is plain nvcc's, and the text is
	 * the same, so that ccache shares it.
	 */
	if (astra_key_nvcc_version(inv->nvcc, astra_config_str(ASTRA_CFG_DIR), &version) == 0)
		astra_buf_addf(out, "nvcc %016llx\n", astra_hash64(version.buf, version.len));
	astra_buf_release(&version);
	memset(&tu, 0, sizeof(tu));
	memset(&sp, 0, sizeof(sp));
	if (astra_config_bool(ASTRA_CFG_DISABLE) || astra_config_mode() == ASTRA_MODE_OFF)
		goto out;
	astra_search_path_add_toolchain(&sp, &inv->cl, inv->nvcc, astra_config_str(ASTRA_CFG_DIR));
	tu.search = &sp;
	if (astra_extract_tu(&tu, inv->cl.inputs.v[0], &inv->cl) < 0 || !tu.nr_kernels)
		goto out;
	/* In strict mode a pragma mistake fails the compile (not an object to share). */
	if (tu.diags.nr && astra_config_bool(ASTRA_CFG_STRICT))
		astra_buf_addf(out, "strict: %zu pragma mistakes\n", tu.diags.nr);
	found = xcalloc(tu.nr_kernels, sizeof(*found));
	if (look_up(inv, &tu, found, 1) <= 0)
		goto out;
	for (i = 0; i < tu.nr_kernels; i++) {
		if (!found[i].variant.text)
			continue;
		if (!n++)
			astra_buf_addf(out, "astra-cc %s substitutes\n", PACKAGE_VERSION);
		astra_buf_addf(out, "%s: variant %016llx for sm", found[i].kernel->name,
			       astra_hash64(found[i].variant.text, strlen(found[i].variant.text)));
		for (c = 0; c < found[i].nr_ccs; c++)
			astra_buf_addf(out, "%s%d", c ? "," : "_", found[i].ccs[c]);
		astra_buf_addch(out, '\n');
	}
out:
	if (!n)
		astra_buf_adds(out, "nothing substituted\n");
	if (found) {
		for (i = 0; i < tu.nr_kernels; i++)
			astra_variant_release(&found[i].variant);
		free(found);
	}
	astra_tu_release(&tu);
	astra_search_path_release(&sp);
	return 0;
}
