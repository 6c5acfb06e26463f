/*
 * cmd-report.c - `astra-cc --report` and `--report-json` (see cmd-report.h): which
 * entries, and the report's JSON document made from them.
 *
 * The document is the one model of the report: the HTML pages
 * (report-html.c) are drawn from it and nothing else, so that the JSON a
 * CI dashboard reads and the pages a person reads cannot disagree.  Its
 * format is doc/report.md's; a change there is a change here.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/compdb.h"
#include "agents/captured.h"
#include "agents/llm.h"
#include "astra-cc/report-html.h"
#include "astra-cc/cmd-report.h"
#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/locate.h"
#include "lib/nvccopts.h"
#include "lib/run.h"
#include "front/key.h"
#include "cache/names.h"
#include "cache/store.h"
#include "front/extract.h"

/* A kernel to report: a cache entry, or a kernel of a file that has none. */
struct item {
	char key[33];            /* "" when no key could be computed */
	int cc;
	int from_source;         /* found in a file of the selection */
	int no_entry;            /* ... and the cache has no verdict for it */
	char *kernel, *file, *text, *grid, *block, *shmem;
	unsigned line;
	char *why;               /* no_entry: why, or what to do */
};

struct items {
	struct item *v;
	size_t nr, alloc;
};

static void item_release(struct item *it)
{
	free(it->kernel);
	free(it->file);
	free(it->text);
	free(it->grid);
	free(it->block);
	free(it->shmem);
	free(it->why);
}

static char *dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* ------------------------------------------------------------ which entries */

struct found_ccs {
	int ccs[64];
	size_t nr;
};

static int collect_all(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct items *l = data;
	struct item it;
	(void)st;
	memset(&it, 0, sizeof(it));
	if (astra_cache_parse_name(name, it.key, &it.cc) != ASTRA_OBJ_ENTRY)
		return 0;
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = it;
	return 0;
}

static int collect_ccs(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct found_ccs *f = data;
	char key[33];
	int cc;
	size_t i;
	(void)st;
	if (astra_cache_parse_name(name, key, &cc) != ASTRA_OBJ_ENTRY)
		return 0;
	for (i = 0; i < f->nr && f->ccs[i] != cc; i++)
		;
	if (i == f->nr && f->nr < ARRAY_SIZE(f->ccs))
		f->ccs[f->nr++] = cc;
	return 0;
}

static void add_source_item(struct items *l, const struct astra_kernel *k, const char *key, int cc, int no_entry,
			    const char *why)
{
	struct item it;
	memset(&it, 0, sizeof(it));
	snprintf(it.key, sizeof(it.key), "%s", key ? key : "");
	it.cc = cc;
	it.from_source = 1;
	it.no_entry = no_entry;
	it.kernel = xstrdup(k->name);
	it.file = dup_opt(k->file);
	it.line = k->line;
	it.text = dup_opt(k->text);
	it.grid = dup_opt(k->pragma.grid);
	it.block = dup_opt(k->pragma.block);
	it.shmem = dup_opt(k->pragma.shmem);
	it.why = dup_opt(why);
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = it;
}

/* Is there an entry for (key, cc) in a tier of the cache, readable or not (the report says which)? */
static int has_entry(struct astra_cache *c, const char *key, int cc)
{
	struct astra_entry e;
	const char *why = NULL;
	int r = astra_cache_peek(c, key, cc, &e, NULL, NULL, &why);
	astra_entry_release(&e);
	return r != 0;
}

/*
 * The kernels of one compile (argv[0]: the real nvcc, run in cwd): each
 * kernel's key for the targets the command names and for every
 * architecture the cache has entries for, as a build would compute it.
 */
static int select_compile(struct astra_cache *c, const char *cwd, struct astra_vec *argv, const char *nvcc,
			  const struct found_ccs *ccs, struct items *l)
{
	struct astra_cmdline cl;
	struct astra_tu tu;
	struct astra_search_path sp;
	struct astra_buf version = ASTRA_BUF_INIT;
	struct astra_vec archs = ASTRA_VEC_INIT;
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	size_t i, a;

	if (cwd && chdir(cwd) < 0) {
		fprintf(stderr, "%s: cannot enter %s: %s\n", astra_progname, cwd, strerror(errno));
		if (here >= 0)
			close(here);
		return -1;
	}
	astra_cmdline_parse(&cl, (int)argv->nr, argv->v);
	memset(&tu, 0, sizeof(tu));
	memset(&sp, 0, sizeof(sp));
	if (cl.reason || !cl.inputs.nr) {
		fprintf(stderr, "%s: not a single-file compile (%s): %s\n", astra_progname,
			cl.reason ? cl.reason : "no input", argv->nr > 1 ? argv->v[argv->nr - 1] : "?");
		ret = -1;
		goto out;
	}
	astra_search_path_add_toolchain(&sp, &cl, nvcc, astra_config_str(ASTRA_CFG_DIR));
	tu.search = &sp;
	if (astra_extract_tu(&tu, cl.inputs.v[0], &cl) < 0) {
		fprintf(stderr, "%s: cannot extract the kernels of %s (see the log)\n", astra_progname, cl.inputs.v[0]);
		ret = -1;
		goto out;
	}
	if (tu.diags.nr) {
		char *d = astra_diags_format(&tu.diags);
		fputs(d, stderr);
		free(d);
	}
	if (astra_key_nvcc_version(nvcc, astra_config_str(ASTRA_CFG_DIR), &version) < 0) {
		fprintf(stderr, "%s: `%s --version` failed: no keys\n", astra_progname, nvcc);
		ret = -1;
		goto out;
	}
	if (astra_arch_targets(&cl, &archs) < 0)
		astra_vec_clear(&archs);
	for (i = 0; i < ccs->nr; i++) {
		char *arch = xasprintf("sm_%d", ccs->ccs[i]);
		if (astra_vec_find(&archs, arch) < 0)
			astra_vec_push(&archs, arch);
		free(arch);
	}
	for (i = 0; i < tu.nr_kernels; i++) {
		const struct astra_kernel *k = &tu.kernels[i];
		char first_key[33] = "";
		int first_cc = 0, found = 0;
		if (k->pragma.flags & ASTRA_PRAGMA_OFF)
			continue;
		if (k->bad_pragma) {
			add_source_item(l, k, NULL, 0, 1, "the pragma has mistakes (see the diagnostics): no key, no "
					"optimization");
			continue;
		}
		for (a = 0; a < archs.nr; a++) {
			struct astra_key key;
			int cc = astra_arch_cc(archs.v[a]);
			if (!cc || astra_key_compute(&tu, k, &cl, archs.v[a], version.buf, &key, NULL) < 0)
				continue;
			if (!first_cc) {
				memcpy(first_key, key.hex, sizeof(first_key));
				first_cc = cc;
			}
			/* Every tier a compile asks (cache/store.h): the local one, then the remote ones. */
			if (has_entry(c, key.hex, cc)) {
				add_source_item(l, k, key.hex, cc, 0, NULL);
				found = 1;
			}
		}
		if (!found && !first_cc) {
			add_source_item(l, k, NULL, 0, 1, "no key: the targets cannot be known from the command line");
		} else if (!found) {
			/* What --warmup would say: a kernel left to a capture needs one first. */
			struct astra_kernel copy;
			struct astra_captured_info ci;
			astra_captured_info_init(&ci);
			if (astra_captured_kernel(c, first_key, first_cc, k, &copy, &ci) < 0 && ci.missing) {
				char *why = xasprintf("no verdict in the cache for this kernel as it is now, and "
						      "astra-cc --warmup cannot optimize it yet: %s", ci.missing);
				add_source_item(l, k, first_key, first_cc, 1, why);
				free(why);
			} else {
				add_source_item(l, k, first_key, first_cc, 1,
						"no verdict in the cache for this kernel as it is now: run "
						"astra-cc --warmup on it (with a GPU)");
			}
			astra_captured_info_release(&ci);
			astra_captured_kernel_release(&copy);
		}
	}
out:
	astra_vec_clear(&archs);
	astra_buf_release(&version);
	astra_tu_release(&tu);
	astra_search_path_release(&sp);
	astra_cmdline_release(&cl);
	if (here >= 0) {
		if (fchdir(here) < 0)
			ret = -1;
		close(here);
	}
	return ret;
}

/* ------------------------------------------------------------ one kernel */

static void set_opt(struct astra_json *o, const char *k, const char *v)
{
	if (v)
		astra_json_set_str(o, k, v);
	else
		astra_json_set_null(o, k);
}

static void set_num_or_null(struct astra_json *o, const char *k, double v)
{
	if (isfinite(v) && v > 0)
		astra_json_set_num(o, k, v);
	else
		astra_json_set_null(o, k);
}

static void iso_date(char *out, size_t n, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (t <= 0 || !gmtime_r(&tt, &tm)) {
		snprintf(out, n, "?");
		return;
	}
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A timing as the report shows it: median, quartiles, and GB/s when bytes are known. */
static struct astra_json *timing(double median, double q25, double q75, double bytes)
{
	struct astra_json *t = astra_json_new_object();
	astra_json_set_num(t, "median_us", median);
	astra_json_set_num(t, "q25_us", q25 > 0 ? q25 : median);
	astra_json_set_num(t, "q75_us", q75 > 0 ? q75 : median);
	if (bytes > 0 && median > 0)
		astra_json_set_num(t, "gbps", bytes / median / 1e3);
	else
		astra_json_set_null(t, "gbps");
	return t;
}

static struct astra_json *timing_from_evidence(const struct astra_json *t, double bytes)
{
	double m = astra_json_get_num(t, "median_us", 0);
	struct astra_json *o;
	if (!(m > 0 && isfinite(m)))
		return NULL;
	o = timing(m, astra_json_get_num(t, "q25_us", 0), astra_json_get_num(t, "q75_us", 0), bytes);
	set_num_or_null(o, "bw_frac", astra_json_get_num(t, "bw_frac", 0));
	astra_json_set_num(o, "reps", astra_json_get_num(t, "reps", 0));
	return o;
}

/*
 * The shapes: from the evidence record when the entry has one (bytes,
 * quartiles, errors, tolerances), else from the manifest's timings (the
 * band is then the median +- half the stored relative spread) and its
 * list of shapes tested.
 */
static struct astra_json *shapes_json(const struct astra_entry *e, const struct astra_json *ev)
{
	struct astra_json *arr = astra_json_new_array();
	const struct astra_json *cases = astra_json_get(ev, "cases");
	size_t i, j;

	if (astra_json_len(cases)) {
		for (i = 0; i < astra_json_len(cases); i++) {
			const struct astra_json *c = astra_json_at(cases, i), *vr = astra_json_get(c, "variant");
			struct astra_json *s = astra_json_new_object(), *t;
			double bytes = astra_json_get_num(c, "bytes", 0);
			set_opt(s, "shape", astra_json_get_str(c, "shape") ? astra_json_get_str(c, "shape") : "?");
			set_num_or_null(s, "bytes", bytes);
			set_num_or_null(s, "flops", astra_json_get_num(c, "flops", 0));
			t = timing_from_evidence(astra_json_get(c, "baseline"), bytes);
			if (t)
				astra_json_set(s, "baseline", t);
			else
				astra_json_set_null(s, "baseline");
			t = timing_from_evidence(vr, bytes);
			if (t) {
				set_num_or_null(t, "speedup", astra_json_get_num(vr, "speedup", 0));
				set_opt(t, "vs_baseline", astra_json_get_str(vr, "vs_baseline"));
				astra_json_set(s, "variant", t);
			} else {
				astra_json_set_null(s, "variant");
			}
			set_opt(s, "tolerances", astra_json_get_str(c, "tolerances"));
			if (vr) {
				astra_json_set_num(s, "trials", astra_json_get_num(vr, "trials", 0));
				astra_json_set_num(s, "max_error_over_tolerance",
						   astra_json_get_num(vr, "max_error_over_tolerance", 0));
			} else {
				astra_json_set_null(s, "trials");
				astra_json_set_null(s, "max_error_over_tolerance");
			}
			astra_json_push(arr, s);
		}
		return arr;
	}
	for (i = 0; i < e->nr_timings; i++) {
		const struct astra_entry_timing *t = &e->timings[i];
		struct astra_json *s = astra_json_new_object();
		astra_json_set_str(s, "shape", t->shape ? t->shape : "?");
		astra_json_set_null(s, "bytes");
		astra_json_set_null(s, "flops");
		if (t->baseline_us > 0)
			astra_json_set(s, "baseline", timing(t->baseline_us, t->baseline_us * (1 - t->baseline_spread / 2),
							      t->baseline_us * (1 + t->baseline_spread / 2), 0));
		else
			astra_json_set_null(s, "baseline");
		if (t->variant_us > 0) {
			struct astra_json *v = timing(t->variant_us, t->variant_us * (1 - t->variant_spread / 2),
						      t->variant_us * (1 + t->variant_spread / 2), 0);
			if (t->baseline_us > 0)
				astra_json_set_num(v, "speedup", t->baseline_us / t->variant_us);
			astra_json_set(s, "variant", v);
		} else {
			astra_json_set_null(s, "variant");
		}
		astra_json_set_null(s, "tolerances");
		astra_json_set_null(s, "trials");
		astra_json_set_null(s, "max_error_over_tolerance");
		astra_json_push(arr, s);
	}
	for (i = 0; i < e->nr_shapes; i++) {
		struct astra_json *s;
		for (j = 0; j < e->nr_timings && strcmp(e->timings[j].shape, e->shapes[i]); j++)
			;
		if (j < e->nr_timings)
			continue;
		s = astra_json_new_object();
		astra_json_set_str(s, "shape", e->shapes[i]);
		astra_json_set_null(s, "bytes");
		astra_json_set_null(s, "flops");
		astra_json_set_null(s, "baseline");
		astra_json_set_null(s, "variant");
		astra_json_set_null(s, "tolerances");
		astra_json_set_null(s, "trials");
		astra_json_set_null(s, "max_error_over_tolerance");
		astra_json_push(arr, s);
	}
	return arr;
}

/* The shape the report calls largest: most bytes moved, else longest original time. */
static long largest_shape(const struct astra_json *shapes)
{
	size_t i;
	long best = -1;
	double best_v = 0;
	int by_bytes = 0;
	for (i = 0; i < astra_json_len(shapes); i++)
		if (astra_json_get_num(astra_json_at(shapes, i), "bytes", 0) > 0)
			by_bytes = 1;
	for (i = 0; i < astra_json_len(shapes); i++) {
		const struct astra_json *s = astra_json_at(shapes, i);
		double v = by_bytes ? astra_json_get_num(s, "bytes", 0)
			: astra_json_get_num(astra_json_get(s, "baseline"), "median_us", 0);
		if (v > best_v) {
			best_v = v;
			best = (long)i;
		}
	}
	return best;
}

/* "rules: a,b,c" -> ["a", "b", "c"]: the rules in the order they were applied. */
static struct astra_json *steps_json(const char *origin)
{
	struct astra_json *a = astra_json_new_array();
	const char *p;
	if (!origin || !astra_starts_with(origin, "rules:"))
		return a;
	p = origin + strlen("rules:");
	while (*p) {
		size_t n;
		char *s;
		p += strspn(p, " ,");
		n = strcspn(p, ",");
		if (!n)
			break;
		s = xstrndup(p, n);
		astra_json_push_str(a, s);
		free(s);
		p += n;
	}
	return a;
}

static struct astra_json *geometry_json(const char *grid, const char *block, const char *shmem)
{
	struct astra_json *g;
	if (!grid && !block && !shmem)
		return NULL;
	g = astra_json_new_object();
	set_opt(g, "grid", grid);
	set_opt(g, "block", block);
	set_opt(g, "shmem", shmem);
	return g;
}

/* The `#pragma astra launch(...)` line of a variant's text, for entries without the evidence record. */
static char *launch_line(const char *text)
{
	const char *p = text;
	while (p && *p) {
		const char *q = p + strspn(p, " \t"), *nl = strchr(p, '\n');
		if (astra_starts_with(q, "#pragma astra launch"))
			return xstrndup(q, nl ? (size_t)(nl - q) : strlen(q));
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The transcript, redacted once more with today's secrets, as JSON when it is JSON. */
static struct astra_json *transcript_json(struct astra_cache *c, const char *key, int cc)
{
	struct astra_buf t = ASTRA_BUF_INIT;
	struct astra_json *j;
	if (astra_cache_transcript(c, key, cc, &t) <= 0) {
		astra_buf_release(&t);
		return NULL;
	}
	astra_llm_redact(&t, astra_config_str(ASTRA_CFG_LLM_API_KEY));
	astra_llm_redact(&t, astra_getenv("OPENAI_API_KEY"));
	j = astra_json_parse(t.buf, t.len);
	if (!j)
		j = astra_json_new_string(t.buf);
	astra_buf_release(&t);
	return j;
}

static void identity(struct astra_json *k, const struct item *it, const char *kernel, const char *file,
		     unsigned line)
{
	char arch[32], *id;
	id = it->key[0] ? xasprintf("%s-%d", it->key, it->cc) : NULL;
	set_opt(k, "id", id);
	if (id) {
		char *page = xasprintf("kernels/%s.html", id);
		astra_json_set_str(k, "page", page);
		free(page);
	} else {
		astra_json_set_null(k, "page");
	}
	free(id);
	astra_json_set_str(k, "kernel", kernel ? kernel : "?");
	set_opt(k, "file", file);
	if (line)
		astra_json_set_num(k, "line", line);
	else
		astra_json_set_null(k, "line");
	set_opt(k, "key", it->key[0] ? it->key : NULL);
	if (it->cc) {
		astra_json_set_num(k, "cc", it->cc);
		snprintf(arch, sizeof(arch), "sm_%d", it->cc);
		astra_json_set_str(k, "arch", arch);
	} else {
		astra_json_set_null(k, "cc");
		astra_json_set_null(k, "arch");
	}
}

static const char *const figure_names[] = {
	"speedup", "speedup_largest", "largest_shape", "copy_roofline", "baseline_us", "best_us", "origin",
	"optimizer", "model", "rounds", "tried", "accepted", "seconds", "created", "date", "device", "driver", "nvcc",
	"copy_gbps", "verification", "geometry", "original_text", "variant_text", "log", "transcript",
};

/* A kernel without a (readable) entry: what is known from the source. */
static struct astra_json *bare_json(const struct item *it, const char *status, const char *reason)
{
	struct astra_json *k = astra_json_new_object(), *g, *og;
	size_t i;
	identity(k, it, it->kernel, it->file, it->line);
	astra_json_set_str(k, "status", status);
	set_opt(k, "reason", reason);
	for (i = 0; i < ARRAY_SIZE(figure_names); i++)
		astra_json_set_null(k, figure_names[i]);
	astra_json_set(k, "steps", astra_json_new_array());
	astra_json_set(k, "shapes", astra_json_new_array());
	astra_json_set(k, "key_inputs", astra_json_new_object());
	set_opt(k, "original_text", it->text);
	g = astra_json_new_object();
	og = geometry_json(it->grid, it->block, it->shmem);
	if (og)
		astra_json_set(g, "original", og);
	else
		astra_json_set_null(g, "original");
	astra_json_set_null(g, "variant");
	astra_json_set(k, "geometry", g);
	return k;
}

static struct astra_json *kernel_json(struct astra_cache *c, const struct item *it)
{
	struct astra_entry e;
	struct astra_storage_stat st;
	const struct astra_json *extra, *ev, *loop, *orig, *vl;
	struct astra_json *k, *shapes, *o, *a;
	const char *why = NULL;
	char date[32];
	long big;
	int r, faster;
	size_t i;

	memset(&st, 0, sizeof(st));
	if (it->no_entry)
		return bare_json(it, "no-entry", it->why);
	r = astra_cache_peek(c, it->key, it->cc, &e, NULL, &st, &why);
	if (r <= 0) {
		char *reason = r < 0 ? xasprintf("the entry cannot be read: %s", why) : xstrdup("the entry vanished");
		k = bare_json(it, r < 0 ? "corrupt" : "no-entry", reason);
		free(reason);
		return k;
	}
	extra = e.extra;
	ev = astra_json_get(extra, "evidence");
	loop = astra_json_get(extra, "loop");
	orig = astra_json_get(extra, "original");
	vl = astra_json_get(extra, "variant_launch");
	faster = e.verdict == ASTRA_VERDICT_FASTER;

	k = astra_json_new_object();
	identity(k, it, e.kernel, e.file ? e.file : it->file, e.line ? e.line : it->line);
	astra_json_set_str(k, "status", astra_verdict_name(e.verdict));
	set_opt(k, "reason", e.reason);

	shapes = shapes_json(&e, ev);
	big = largest_shape(shapes);
	if (e.verdict == ASTRA_VERDICT_FAILED) {
		astra_json_set_null(k, "speedup");
		astra_json_set_null(k, "speedup_largest");
	} else {
		double sl = 1.0;
		if (faster) {
			const struct astra_json *bs = big >= 0 ? astra_json_at(shapes, (size_t)big) : NULL;
			double b0 = astra_json_get_num(astra_json_get(bs, "baseline"), "median_us", 0);
			double b1 = astra_json_get_num(astra_json_get(bs, "variant"), "median_us", 0);
			sl = astra_json_get_num(loop, "speedup_largest", 0);
			if (!(sl > 0))
				sl = b0 > 0 && b1 > 0 ? b0 / b1 : 0;
		}
		set_num_or_null(k, "speedup", faster ? e.speedup : 1.0);
		set_num_or_null(k, "speedup_largest", sl);
	}
	if (big >= 0) {
		const struct astra_json *bs = astra_json_at(shapes, (size_t)big);
		const struct astra_json *b0 = astra_json_get(bs, "baseline"), *b1 = astra_json_get(bs, "variant");
		double frac = astra_json_get_num(faster && b1 ? b1 : b0, "bw_frac", 0);
		astra_json_set_str(k, "largest_shape", astra_json_get_str(bs, "shape"));
		if (!(frac > 0))
			frac = astra_json_get_num(loop, faster ? "best_bw_frac" : "baseline_bw_frac", 0);
		set_num_or_null(k, "copy_roofline", frac);
		set_num_or_null(k, "baseline_us", astra_json_get_num(b0, "median_us", 0));
		set_num_or_null(k, "best_us", astra_json_get_num(faster && b1 ? b1 : b0, "median_us", 0));
	} else {
		astra_json_set_null(k, "largest_shape");
		set_num_or_null(k, "copy_roofline",
				astra_json_get_num(loop, faster ? "best_bw_frac" : "baseline_bw_frac", 0));
		set_num_or_null(k, "baseline_us", astra_json_get_num(loop, "baseline_us", 0));
		set_num_or_null(k, "best_us", astra_json_get_num(loop, "best_us", 0));
	}
	set_opt(k, "origin", e.origin);
	astra_json_set(k, "steps", steps_json(e.origin));
	set_opt(k, "optimizer", e.optimizer);
	set_opt(k, "model", e.model);
	if (loop) {
		astra_json_set_num(k, "rounds", astra_json_get_num(loop, "rounds", 0));
		astra_json_set_num(k, "tried", astra_json_get_num(loop, "tried", 0));
		astra_json_set_num(k, "accepted", astra_json_get_num(loop, "accepted", 0));
	} else {
		astra_json_set_null(k, "rounds");
		astra_json_set_null(k, "tried");
		astra_json_set_null(k, "accepted");
	}
	astra_json_set_num(k, "seconds", e.seconds);
	astra_json_set_num(k, "created", (double)e.created);
	iso_date(date, sizeof(date), e.created);
	astra_json_set_str(k, "date", date);
	set_opt(k, "device", e.device);
	set_opt(k, "driver", e.driver);
	set_opt(k, "nvcc", e.nvcc_version);
	set_num_or_null(k, "copy_gbps", astra_json_get_num(astra_json_get(ev, "device"), "copy_gbps", 0));
	astra_json_set(k, "shapes", shapes);

	if (ev || e.nr_seeds) {
		const struct astra_json *ch = astra_json_get(ev, "checks"), *var = astra_json_get(ev, "variant");
		struct astra_json *s;
		o = astra_json_new_object();
		set_opt(o, "run", astra_json_get_str(ev, "run"));
		a = astra_json_set_array(o, "seeds");
		for (i = 0; i < e.nr_seeds; i++)
			astra_json_push_num(a, (double)e.seeds[i]);
		astra_json_set(o, "distributions",
			       astra_json_get(ev, "distributions") ? astra_json_dup(astra_json_get(ev, "distributions"))
								    : astra_json_new_array());
		if (ch)
			astra_json_set(o, "checks", astra_json_dup(ch));
		else
			astra_json_set_null(o, "checks");
		s = astra_json_set_object(o, "sanitizers");
		if (ch) {
			/* Ran on the round (checks) and came out clean for the variant (variant). */
			int mem_ran = astra_json_get_bool(ch, "memcheck", 0), race_ran = astra_json_get_bool(ch, "racecheck", 0);
			astra_json_set_str(s, "memcheck", !mem_ran ? "not run"
					   : var && astra_json_get_bool(var, "memcheck", 0) ? "clean" : "ran");
			astra_json_set_str(s, "racecheck", !race_ran ? "not run"
					   : var && astra_json_get_bool(var, "racecheck", 0) ? "clean" : "ran");
		}
		if (var)
			astra_json_set(o, "variant", astra_json_dup(var));
		else
			astra_json_set_null(o, "variant");
		astra_json_set(o, "notes", astra_json_get(ev, "notes") ? astra_json_dup(astra_json_get(ev, "notes"))
							   : astra_json_new_array());
		astra_json_set(k, "verification", o);
	} else {
		astra_json_set_null(k, "verification");
	}

	o = astra_json_new_object();
	{
		struct astra_json *g = orig ? geometry_json(astra_json_get_str(orig, "grid"), astra_json_get_str(orig, "block"),
							   astra_json_get_str(orig, "shmem"))
			: geometry_json(it->grid, it->block, it->shmem);
		if (g)
			astra_json_set(o, "original", g);
		else
			astra_json_set_null(o, "original");
		g = vl ? geometry_json(astra_json_get_str(vl, "grid"), astra_json_get_str(vl, "block"),
				       astra_json_get_str(vl, "shmem")) : NULL;
		if (!g && e.variant) {
			char *line = launch_line(e.variant);
			if (line) {
				g = astra_json_new_object();
				astra_json_set_str(g, "pragma", line);
				free(line);
			}
		}
		if (g)
			astra_json_set(o, "variant", g);
		else
			astra_json_set_null(o, "variant");
	}
	astra_json_set(k, "geometry", o);
	set_opt(k, "original_text", astra_json_get_str(orig, "text") ? astra_json_get_str(orig, "text") : it->text);
	if (e.variant) {
		set_opt(k, "variant_text", e.variant);
	} else if (e.nr_variants) {
		/*
		 * A variant set (shape dispatch): the variant whose figures the
		 * evidence holds (the one at the largest shape); --show-entry
		 * has the whole set and where each one runs.
		 */
		const char *name = astra_json_get_str(astra_json_get(ev, "variant"), "name");
		size_t v = 0;
		char *text;
		for (i = 0; name && i < e.nr_variants; i++)
			if (e.variants[i].origin && !strcmp(e.variants[i].origin, name))
				v = i;
		text = xstrndup(e.variants[v].text, e.variants[v].len);
		astra_json_set_str(k, "variant_text", text);
		free(text);
	} else {
		set_opt(k, "variant_text", NULL);
	}
	astra_json_set(k, "log", astra_json_get(loop, "log") ? astra_json_dup(astra_json_get(loop, "log"))
						     : astra_json_new_array());
	{
		struct astra_json *t = e.transcript_len >= 0 ? transcript_json(c, e.key, e.cc) : NULL;
		if (t)
			astra_json_set(k, "transcript", t);
		else
			astra_json_set_null(k, "transcript");
	}
	o = astra_json_set_object(k, "key_inputs");
	for (i = 0; i < e.nr_inputs; i++)
		astra_json_set_str(o, e.inputs[i].label, e.inputs[i].value);
	astra_entry_release(&e);
	return k;
}

/* ------------------------------------------------------------ the document */

static int by_place(const void *x, const void *y)
{
	const struct astra_json *a = *(struct astra_json *const *)x, *b = *(struct astra_json *const *)y;
	const char *fa = astra_json_get_str(a, "file"), *fb = astra_json_get_str(b, "file");
	int r = !fa - !fb;
	double la, lb;
	/* Entries that cannot be read (no file known) last. */
	if (r)
		return r;
	r = strcmp(fa ? fa : "", fb ? fb : "");
	if (r)
		return r;
	la = astra_json_get_num(a, "line", 0);
	lb = astra_json_get_num(b, "line", 0);
	if (la != lb)
		return la < lb ? -1 : 1;
	r = strcmp(astra_json_get_str(a, "kernel"), astra_json_get_str(b, "kernel"));
	if (r)
		return r;
	return (int)(astra_json_get_num(b, "cc", 0) - astra_json_get_num(a, "cc", 0));
}

static struct astra_json *summary_json(const struct astra_json *kernels)
{
	struct astra_json *s = astra_json_new_object(), *st = astra_json_set_object(s, "statuses");
	double lg = 0, lg_all = 0;
	size_t i, nf = 0, nv = 0;
	for (i = 0; i < astra_json_len(kernels); i++) {
		const struct astra_json *k = astra_json_at(kernels, i);
		const char *status = astra_json_get_str(k, "status");
		double sl = astra_json_get_num(k, "speedup_largest", 0);
		astra_json_set_num(st, status, astra_json_get_num(st, status, 0) + 1);
		if (!strcmp(status, "faster") && sl > 0) {
			lg += log(sl);
			nf++;
		}
		if ((!strcmp(status, "faster") || !strcmp(status, "no-faster-variant")) && sl > 0) {
			lg_all += log(sl);
			nv++;
		}
	}
	astra_json_set_num(s, "kernels", (double)astra_json_len(kernels));
	set_num_or_null(s, "geomean_speedup_largest_faster", nf ? exp(lg / (double)nf) : 0);
	set_num_or_null(s, "geomean_speedup_largest", nv ? exp(lg_all / (double)nv) : 0);
	return s;
}

static struct astra_json *build_doc(struct astra_cache *c, struct items *l, const char *selection)
{
	struct astra_json *doc = astra_json_new_object(), *arr;
	struct astra_json **ks = xcalloc(l->nr ? l->nr : 1, sizeof(*ks));
	char date[32];
	size_t i;

	astra_json_set_num(doc, "format", ASTRA_REPORT_FORMAT);
	astra_json_set_str(doc, "generator", "astra-cc " PACKAGE_VERSION);
	astra_json_set_num(doc, "created", (double)astra_time());
	iso_date(date, sizeof(date), astra_time());
	astra_json_set_str(doc, "date", date);
	astra_json_set_str(doc, "cache_dir", astra_cache_dir(c));
	astra_json_set_str(doc, "selection", selection);
	for (i = 0; i < l->nr; i++)
		ks[i] = kernel_json(c, &l->v[i]);
	qsort(ks, l->nr, sizeof(*ks), by_place);
	arr = astra_json_new_array();
	for (i = 0; i < l->nr; i++)
		astra_json_push(arr, ks[i]);
	free(ks);
	astra_json_set(doc, "summary", summary_json(arr));
	astra_json_set(doc, "kernels", arr);
	return doc;
}

/* ------------------------------------------------------------ the command */

static void usage(void)
{
	fprintf(stderr, "usage: %s --report DIR [--report-json FILE] [-p BUILD_DIR | FILE.cu... [-- NVCC FLAGS]]\n"
		"       %s --report-json FILE [--report DIR] [...]   (FILE `-`: standard output)\n",
		astra_progname, astra_progname);
}

/* "--report DIR" or "--report=DIR": the value, advancing *i; NULL when argv[*i] is not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, int *bad)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		*bad = 1;
		return NULL;
	}
	return argv[++*i];
}

static int write_json(const struct astra_json *doc, const char *path)
{
	char *raw = astra_json_print(doc, 1), *text;
	struct astra_buf b = ASTRA_BUF_INIT;
	/* JSON is UTF-8: bytes from the cache that are not become U+FFFD. */
	astra_buf_add_utf8(&b, raw);
	free(raw);
	text = astra_buf_detach(&b, NULL);
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int ret = 0;
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, path, strerror(errno));
		free(text);
		return -1;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) < 0)
		ret = -1;
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		ret = -1;
	if (ret < 0)
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, path, strerror(errno));
	free(text);
	return ret;
}

int astra_cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *json = NULL, *db = NULL, *v;
	struct astra_vec files = ASTRA_VEC_INIT, flags = ASTRA_VEC_INIT;
	struct items l = { NULL, 0, 0 };
	struct astra_cache *c;
	struct astra_json *doc;
	int i, bad = 0, ret = 0;
	size_t k;

	for (i = 0; i < argc && !bad; i++) {
		if ((v = opt_value(argc, argv, &i, "--report-json", &bad)))
			json = v;
		else if (!bad && (v = opt_value(argc, argv, &i, "--report", &bad)))
			dir = v;
		else if (!bad && !strcmp(argv[i], "-p") && i + 1 < argc)
			db = argv[++i];
		else if (!bad && !strcmp(argv[i], "--")) {
			for (i++; i < argc; i++)
				astra_vec_push(&flags, argv[i]);
		} else if (!bad && argv[i][0] != '-')
			astra_vec_push(&files, argv[i]);
		else
			bad = 1;
	}
	if (bad || (!dir && !json) || (db && files.nr)) {
		usage();
		astra_vec_clear(&files);
		astra_vec_clear(&flags);
		return 2;
	}

	c = astra_cache_open(NULL);
	if (!db && !files.nr) {
		astra_cache_local(c)->ops->list(astra_cache_local(c), "", collect_all, &l);
	} else {
		struct found_ccs ccs = { { 0 }, 0 };
		const char *why;
		char *nvcc = astra_locate_nvcc(0, &why);
		if (!nvcc) {
			fprintf(stderr, "%s: cannot find the real nvcc (needed for the kernels' keys): %s\n",
				astra_progname, why);
			astra_cache_close(c);
			astra_vec_clear(&files);
			astra_vec_clear(&flags);
			return 1;
		}
		astra_cache_local(c)->ops->list(astra_cache_local(c), "", collect_ccs, &ccs);
		if (db) {
			struct astra_compdb_entry *ents = NULL;
			size_t ne = 0, ae = 0;
			if (astra_compdb_load(db, nvcc, &ents, &ne, &ae) < 0)
				ret = 1;
			for (k = 0; k < ne; k++)
				if (select_compile(c, ents[k].dir, &ents[k].argv, nvcc, &ccs, &l) < 0)
					ret = 1;
			astra_compdb_free(ents, ne);
		}
		for (k = 0; k < files.nr; k++) {
			struct astra_vec args = ASTRA_VEC_INIT;
			astra_vec_push(&args, nvcc);
			astra_vec_pushv(&args, flags.v, flags.nr);
			astra_vec_push(&args, "-c");
			astra_vec_push(&args, files.v[k]);
			if (select_compile(c, NULL, &args, nvcc, &ccs, &l) < 0)
				ret = 1;
			astra_vec_clear(&args);
		}
		free(nvcc);
	}

	if (ret) {
		/* A selection that failed is not an empty one: no page, no JSON. */
		fprintf(stderr, "%s: no report written\n", astra_progname);
		goto out;
	}
	doc = build_doc(c, &l, db || files.nr ? "files" : "cache");
	if (json && write_json(doc, json) < 0)
		ret = 1;
	if (dir) {
		if (astra_report_html_write(doc, dir) < 0)
			ret = 1;
		else if (!json || strcmp(json, "-"))
			printf("report: %s/index.html (%zu kernel%s)\n", dir, astra_json_len(astra_json_get(doc, "kernels")),
			       astra_json_len(astra_json_get(doc, "kernels")) == 1 ? "" : "s");
	}
	astra_json_free(doc);
out:
	for (k = 0; k < l.nr; k++)
		item_release(&l.v[k]);
	free(l.v);
	astra_cache_close(c);
	astra_vec_clear(&files);
	astra_vec_clear(&flags);
	return ret;
}
