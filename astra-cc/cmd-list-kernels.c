/*
 * listkernels.c - the --list-kernels command (see listkernels.h).
 *
 * A command of its own file because it is the user's window on extraction
 * and the key: it ties extract.c, pragma.c and key.c together exactly as
 * a build does, and prints the result.  The golden tests of extraction
 * are written against its output.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/locate.h"
#include "lib/vec.h"
#include "front/key.h"
#include "front/extract.h"
#include "cache/store.h"
#include "agents/captured.h"
#include "astra-cc/cmd-list-kernels.h"

struct listing {
	const struct astra_cmdline *cl;
	struct astra_vec archs;
	int archs_known;
	char *nvcc_version;      /* NULL: unknown */
	const char *why_no_key;
	int json, key_text;
	struct astra_cache *cache;  /* for the kernels' captures (agents/captured.h) */
};

/*
 * What the test of k for (key, cc) is made of, when a capture is involved:
 * each test shape and where it came from (the pragma, or captured launches),
 * and what was inferred from the capture, for the user to confirm.  A
 * kernel that needs a capture and has none gets the message that says how
 * to make one.  Nothing for a kernel whose pragma describes it and that
 * has no capture.  Text to out, or JSON into *js (may be NULL).
 */
static void captured(const struct listing *L, const struct astra_kernel *k, const char *key, int cc,
		     const char *arch, FILE *out, struct astra_json *js)
{
	struct astra_captured_info ci;
	struct astra_kernel kc;
	size_t i;
	int r;
	if (!cc || k->bad_pragma || (k->pragma.flags & ASTRA_PRAGMA_OFF))
		return;
	astra_captured_info_init(&ci);
	r = astra_captured_kernel(L->cache, key, cc, k, &kc, &ci);
	if (r == 0 && !ci.by_capture) {
		astra_captured_kernel_release(&kc);
		astra_captured_info_release(&ci);
		return;
	}
	if (out) {
		if (r < 0) {
			fprintf(out, "  capture %s: none: %s\n", arch, ci.missing);
		} else {
			fprintf(out, "  capture %s: %lld launch%s in %lld run%s, %zu shape%s (%lld launch%s past the limit)",
				arch, ci.launches, ci.launches == 1 ? "" : "es", ci.runs, ci.runs == 1 ? "" : "s",
				ci.nr_captured, ci.nr_captured == 1 ? "" : "s", ci.dropped, ci.dropped == 1 ? "" : "es");
			if (ci.failed)
				fprintf(out, "; %lld failed launch%s not recorded", ci.failed, ci.failed == 1 ? "" : "es");
			fputc('\n', out);
			for (i = 0; i < ci.shapes.nr; i++)
				fprintf(out, "  test shape %s: %s\n", arch, ci.shapes.v[i]);
			for (i = 0; i < ci.notes.nr; i++)
				fprintf(out, "  inferred %s: %s\n", arch, ci.notes.v[i]);
			if (ci.by_capture) {
				char *canon = astra_pragma_canonical(&kc.pragma);
				fprintf(out, "  test pragma %s: %s\n", arch, canon);
				free(canon);
			}
		}
	}
	if (js) {
		struct astra_json *o = astra_json_set_object(js, arch), *a;
		astra_json_set_bool(o, "by_capture", ci.by_capture);
		astra_json_set_bool(o, "captured", ci.have_capture);
		if (r < 0)
			astra_json_set_str(o, "missing", ci.missing);
		astra_json_set_num(o, "launches", (double)ci.launches);
		astra_json_set_num(o, "runs", (double)ci.runs);
		astra_json_set_num(o, "dropped", (double)ci.dropped);
		astra_json_set_num(o, "failed", (double)ci.failed);
		astra_json_set_num(o, "captured_shapes", (double)ci.nr_captured);
		a = astra_json_set_array(o, "test_shapes");
		for (i = 0; r >= 0 && i < ci.shapes.nr; i++)
			astra_json_push_str(a, ci.shapes.v[i]);
		a = astra_json_set_array(o, "inferred");
		for (i = 0; r >= 0 && i < ci.notes.nr; i++)
			astra_json_push_str(a, ci.notes.v[i]);
		if (r >= 0 && ci.by_capture) {
			char *canon = astra_pragma_canonical(&kc.pragma);
			astra_json_set_str(o, "test_pragma", canon);
			free(canon);
		}
	}
	astra_captured_kernel_release(&kc);
	astra_captured_info_release(&ci);
}

static const char *status(const struct astra_kernel *k)
{
	if (k->bad_pragma)
		return "pragma has mistakes (see the warnings)";
	if (k->pragma.flags & ASTRA_PRAGMA_OFF)
		return "off";
	return "ok";
}

static char *signature(const struct astra_kernel *k)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (k->is_template) {
		astra_buf_adds(&b, "template <");
		for (i = 0; i < k->nr_tmpl; i++)
			astra_buf_addf(&b, "%s%s %s%s%s", i ? ", " : "", k->tmpl_kinds[i], k->tmpl_params[i],
				       k->tmpl_defaults[i] ? " = " : "", k->tmpl_defaults[i] ? k->tmpl_defaults[i] : "");
		astra_buf_adds(&b, "> ");
	}
	astra_buf_addf(&b, "%s(", k->name);
	for (i = 0; i < k->nr_params; i++)
		astra_buf_addf(&b, "%s%s%s%s", i ? ", " : "", k->params[i].type,
			       k->params[i].name[0] && !astra_ends_with(k->params[i].type, "*") ? " " : "",
			       k->params[i].name);
	astra_buf_addch(&b, ')');
	return astra_buf_detach(&b, NULL);
}

/* The key of k for one arch, as hex, or a reason in parentheses. */
static char *key_of(const struct listing *L, const struct astra_tu *tu, const struct astra_kernel *k,
		    const char *arch, struct astra_buf *text)
{
	struct astra_key key;
	if (!L->nvcc_version)
		return xasprintf("(unknown: %s)", L->why_no_key);
	if (k->bad_pragma || (k->pragma.flags & ASTRA_PRAGMA_OFF))
		return xstrdup("(none: not optimized)");
	if (astra_key_compute(tu, k, L->cl, arch, L->nvcc_version, &key, text) < 0)
		return xstrdup("(none: the headers it can see are not all known; see the log)");
	return xstrdup(key.hex);
}

static void print_text(const struct listing *L, const struct astra_tu *tu)
{
	size_t i, j, a, n;
	for (i = 0; i < tu->nr_kernels; i++) {
		const struct astra_kernel *k = &tu->kernels[i];
		char *sig = signature(k), *canon = astra_pragma_canonical(&k->pragma);
		printf("%s:%u:%u: kernel %s\n", k->file, k->line, k->col, k->name);
		printf("  signature: %s\n", sig);
		for (j = 0; j < k->nr_params; j++) {
			const struct astra_param *p = &k->params[j];
			if (p->is_pointer)
				printf("  param %s: pointer to %s%s\n", p->name[0] ? p->name : "(unnamed)",
				       p->is_const ? "const " : "", p->elem_type ? p->elem_type : "?");
		}
		if (k->is_extern_c)
			printf("  linkage: extern \"C\"%s\n", k->is_extern_c == 2 ? " (block)" : "");
		if (k->launch_bounds)
			printf("  launch bounds: %s\n", k->launch_bounds);
		printf("  pragma: %s\n", canon);
		printf("  status: %s\n", status(k));
		printf("  deps:");
		for (j = 0; j < k->nr_deps; j++)
			printf(" %s", k->deps[j]);
		printf("%s\n", k->nr_deps ? "" : " none");
		/* Project headers by name; system headers are in the key (--key-text) and the JSON's count. */
		printf("  headers:");
		for (j = n = 0; j < k->nr_headers; j++) {
			const struct astra_header *h = &tu->includes.items[k->headers[j]];
			if (h->system)
				continue;
			printf(" %s%s", h->spelled, h->text ? "" : " (not found)");
			n++;
		}
		printf("%s\n", n ? "" : " none");
		if (!L->archs_known)
			printf("  key: (unknown: the targets cannot be known from the command line)\n");
		for (a = 0; L->archs_known && a < L->archs.nr; a++) {
			struct astra_buf text = ASTRA_BUF_INIT;
			char *key = key_of(L, tu, k, L->archs.v[a], &text);
			printf("  key %s: %s\n", L->archs.v[a], key);
			if (L->key_text && text.len)
				printf("%s", text.buf);
			if (key[0] != '(')
				captured(L, k, key, astra_arch_cc(L->archs.v[a]), L->archs.v[a], stdout, NULL);
			free(key);
			astra_buf_release(&text);
		}
		free(sig);
		free(canon);
	}
	for (i = 0; i < tu->nr_launches; i++) {
		const struct astra_launch *l = &tu->launches[i];
		printf("%s:%u:%u: launch %s<<<", tu->path, l->line, l->col, l->kernel);
		for (j = 0; j < l->nr_config; j++)
			printf("%s%s", j ? ", " : "", l->config[j]);
		printf(">>>(");
		for (j = 0; j < l->nr_args; j++)
			printf("%s%s", j ? ", " : "", l->args[j]);
		printf(")%s\n", l->in_macro ? " [in a macro]" : "");
	}
}

static struct astra_json *assign_set(const struct astra_assign_set *s)
{
	struct astra_json *o = astra_json_new_object();
	size_t i;
	for (i = 0; i < s->nr; i++)
		astra_json_set_str(o, s->items[i].name, s->items[i].value);
	return o;
}

static struct astra_json *pragma_json(const struct astra_pragma *p)
{
	struct astra_json *o = astra_json_new_object(), *a;
	char *canon = astra_pragma_canonical(p);
	size_t i, j;
	astra_json_set_str(o, "canonical", canon);
	free(canon);
	astra_json_set_num(o, "line", p->line);
	astra_json_set_bool(o, "optimize", (p->flags & ASTRA_PRAGMA_OPTIMIZE) != 0);
	astra_json_set_bool(o, "off", (p->flags & ASTRA_PRAGMA_OFF) != 0);
	astra_json_set_bool(o, "noalias", (p->flags & ASTRA_PRAGMA_NOALIAS) != 0);
	a = astra_json_set_array(o, "shapes");
	for (i = 0; i < p->nr_shapes; i++)
		astra_json_push(a, assign_set(&p->shapes[i]));
	a = astra_json_set_array(o, "buffers");
	for (i = 0; i < p->nr_buffers; i++) {
		struct astra_json *b = astra_json_new_object();
		astra_json_set_str(b, "name", p->buffers[i].name);
		astra_json_set_str(b, "count", p->buffers[i].count);
		astra_json_push(a, b);
	}
	a = astra_json_set_array(o, "outputs");
	for (i = 0; i < p->nr_outputs; i++)
		astra_json_push_str(a, p->outputs[i]);
	if (p->grid || p->block || p->shmem) {
		struct astra_json *l = astra_json_set_object(o, "launch");
		if (p->grid)
			astra_json_set_str(l, "grid", p->grid);
		if (p->block)
			astra_json_set_str(l, "block", p->block);
		if (p->shmem)
			astra_json_set_str(l, "shmem", p->shmem);
	}
	a = astra_json_set_array(o, "types");
	for (i = 0; i < p->nr_types; i++)
		astra_json_push(a, assign_set(&p->types[i]));
	astra_json_set(o, "scalars", assign_set(&p->scalars));
	a = astra_json_set_array(o, "ranges");
	for (i = 0; i < p->nr_ranges; i++) {
		struct astra_json *r = astra_json_new_object();
		astra_json_set_str(r, "name", p->ranges[i].name);
		astra_json_set_str(r, "lo", p->ranges[i].lo);
		astra_json_set_str(r, "hi", p->ranges[i].hi);
		astra_json_push(a, r);
	}
	a = astra_json_set_array(o, "tolerances");
	for (i = 0; i < p->nr_tolerances; i++) {
		struct astra_json *t = astra_json_new_object();
		if (p->tolerances[i].name)
			astra_json_set_str(t, "name", p->tolerances[i].name);
		if (p->tolerances[i].rtol >= 0)
			astra_json_set_num(t, "rtol", p->tolerances[i].rtol);
		if (p->tolerances[i].atol >= 0)
			astra_json_set_num(t, "atol", p->tolerances[i].atol);
		astra_json_push(a, t);
	}
	a = astra_json_set_array(o, "tunables");
	for (i = 0; i < p->nr_tunables; i++) {
		struct astra_json *t = astra_json_new_object(), *v;
		astra_json_set_str(t, "name", p->tunables[i].name);
		v = astra_json_set_array(t, "values");
		for (j = 0; j < p->tunables[i].nr; j++)
			astra_json_push_str(v, p->tunables[i].values[j]);
		astra_json_push(a, t);
	}
	if (p->flops)
		astra_json_set_str(o, "flops", p->flops);
	if (p->bytes)
		astra_json_set_str(o, "bytes", p->bytes);
	return o;
}

static int capture_involved(const struct astra_json *o)
{
	return astra_json_len(o) > 0;
}

static struct astra_json *tu_json(const struct listing *L, const struct astra_tu *tu)
{
	struct astra_json *o = astra_json_new_object(), *ks, *ls, *ds;
	size_t i, j, a, n;
	astra_json_set_str(o, "file", tu->path);
	ks = astra_json_set_array(o, "kernels");
	for (i = 0; i < tu->nr_kernels; i++) {
		const struct astra_kernel *k = &tu->kernels[i];
		struct astra_json *kj = astra_json_new_object(), *arr, *keys, *capt;
		astra_json_set_str(kj, "name", k->name);
		astra_json_set_str(kj, "file", k->file);
		astra_json_set_num(kj, "line", k->line);
		astra_json_set_num(kj, "col", k->col);
		astra_json_set_num(kj, "start", (double)k->start);
		astra_json_set_num(kj, "end", (double)k->end);
		astra_json_set_num(kj, "body_start", (double)k->body_start);
		astra_json_set_bool(kj, "template", k->is_template);
		arr = astra_json_set_array(kj, "template_params");
		for (j = 0; j < k->nr_tmpl; j++) {
			struct astra_json *t = astra_json_new_object();
			astra_json_set_str(t, "name", k->tmpl_params[j]);
			astra_json_set_str(t, "kind", k->tmpl_kinds[j]);
			if (k->tmpl_defaults[j])
				astra_json_set_str(t, "default", k->tmpl_defaults[j]);
			astra_json_push(arr, t);
		}
		astra_json_set_str(kj, "linkage", k->is_extern_c == 1 ? "extern C" :
				   k->is_extern_c == 2 ? "extern C block" : "C++");
		if (k->launch_bounds)
			astra_json_set_str(kj, "launch_bounds", k->launch_bounds);
		arr = astra_json_set_array(kj, "params");
		for (j = 0; j < k->nr_params; j++) {
			const struct astra_param *p = &k->params[j];
			struct astra_json *pj = astra_json_new_object();
			astra_json_set_str(pj, "name", p->name);
			astra_json_set_str(pj, "type", p->type);
			astra_json_set_bool(pj, "pointer", p->is_pointer);
			if (p->is_pointer) {
				astra_json_set_str(pj, "elem_type", p->elem_type ? p->elem_type : "");
				astra_json_set_bool(pj, "const", p->is_const);
			}
			astra_json_push(arr, pj);
		}
		astra_json_set(kj, "pragma", pragma_json(&k->pragma));
		astra_json_set_str(kj, "status", k->bad_pragma ? "bad-pragma" :
				   (k->pragma.flags & ASTRA_PRAGMA_OFF) ? "off" : "ok");
		arr = astra_json_set_array(kj, "deps");
		for (j = 0; j < k->nr_deps; j++) {
			struct astra_json *d = astra_json_new_object();
			astra_json_set_str(d, "name", k->deps[j]);
			astra_json_set_str(d, "file", k->dep_files[j]);
			astra_json_push(arr, d);
		}
		arr = astra_json_set_array(kj, "headers");
		for (j = n = 0; j < k->nr_headers; j++) {
			if (tu->includes.items[k->headers[j]].system)
				n++;
			else
				astra_json_push_str(arr, tu->includes.items[k->headers[j]].spelled);
		}
		astra_json_set_num(kj, "system_headers", (double)n);
		keys = astra_json_set_object(kj, "keys");
		capt = astra_json_new_object();
		for (a = 0; L->archs_known && a < L->archs.nr; a++) {
			char *key = key_of(L, tu, k, L->archs.v[a], NULL);
			if (key[0] == '(')
				astra_json_set_null(keys, L->archs.v[a]);
			else
				astra_json_set_str(keys, L->archs.v[a], key);
			if (key[0] != '(')
				captured(L, k, key, astra_arch_cc(L->archs.v[a]), L->archs.v[a], NULL, capt);
			free(key);
		}
		/* Only where a capture is involved, so that other listings stay as they were. */
		if (capture_involved(capt))
			astra_json_set(kj, "capture", capt);
		else
			astra_json_free(capt);
		astra_json_push(ks, kj);
	}
	ls = astra_json_set_array(o, "launches");
	for (i = 0; i < tu->nr_launches; i++) {
		const struct astra_launch *l = &tu->launches[i];
		struct astra_json *lj = astra_json_new_object(), *arr;
		astra_json_set_str(lj, "kernel", l->kernel);
		astra_json_set_str(lj, "name", l->name);
		astra_json_set_num(lj, "line", l->line);
		astra_json_set_num(lj, "col", l->col);
		astra_json_set_num(lj, "start", (double)l->start);
		astra_json_set_num(lj, "end", (double)l->end);
		arr = astra_json_set_array(lj, "config");
		for (j = 0; j < l->nr_config; j++)
			astra_json_push_str(arr, l->config[j]);
		arr = astra_json_set_array(lj, "args");
		for (j = 0; j < l->nr_args; j++)
			astra_json_push_str(arr, l->args[j]);
		astra_json_set_bool(lj, "in_macro", l->in_macro);
		astra_json_push(ls, lj);
	}
	ds = astra_json_set_array(o, "diagnostics");
	for (i = 0; i < tu->diags.nr; i++) {
		const struct astra_diag *g = &tu->diags.items[i];
		struct astra_json *dj = astra_json_new_object();
		astra_json_set_str(dj, "file", g->file);
		astra_json_set_num(dj, "line", g->line);
		astra_json_set_num(dj, "col", g->col);
		astra_json_set_str(dj, "severity", g->is_error ? "error" : "warning");
		astra_json_set_str(dj, "message", g->msg);
		astra_json_push(ds, dj);
	}
	return o;
}

int astra_list_kernels(int argc, char **argv)
{
	struct astra_vec nvcc_argv = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	struct listing L;
	struct astra_search_path sp;
	struct astra_json *all = NULL;
	char *nvcc;
	int i, ret = 0, strict = astra_config_bool(ASTRA_CFG_STRICT);
	size_t f;

	memset(&L, 0, sizeof(L));
	memset(&sp, 0, sizeof(sp));
	astra_vec_push(&nvcc_argv, "nvcc");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			L.json = 1;
		else if (!strcmp(argv[i], "--key-text"))
			L.key_text = 1;
		else
			astra_vec_push(&nvcc_argv, argv[i]);
	}
	astra_cmdline_parse(&cl, (int)nvcc_argv.nr, nvcc_argv.v);
	astra_vec_clear(&nvcc_argv);
	if (!cl.inputs.nr) {
		fprintf(stderr, "usage: %s --list-kernels FILE.cu [nvcc flags] [--json] [--key-text]\n", astra_progname);
		astra_cmdline_release(&cl);
		return 2;
	}
	L.cl = &cl;
	L.archs_known = astra_arch_targets(&cl, &L.archs) == 0;
	nvcc = astra_locate_nvcc(0, &L.why_no_key);
	if (nvcc) {
		struct astra_buf v = ASTRA_BUF_INIT;
		if (astra_key_nvcc_version(nvcc, astra_config_str(ASTRA_CFG_DIR), &v) == 0)
			L.nvcc_version = astra_buf_detach(&v, NULL);
		else
			L.why_no_key = "nvcc --version failed";
		astra_buf_release(&v);
		astra_search_path_add_toolchain(&sp, &cl, nvcc, astra_config_str(ASTRA_CFG_DIR));
		free(nvcc);
	}
	L.cache = astra_cache_open(NULL);
	if (L.json) {
		all = astra_json_new_object();
		astra_json_set_array(all, "files");
	}

	for (f = 0; f < cl.inputs.nr; f++) {
		struct astra_tu tu;
		char *diags;
		memset(&tu, 0, sizeof(tu));
		tu.search = L.nvcc_version ? &sp : NULL;
		if (astra_extract_tu(&tu, cl.inputs.v[f], &cl) < 0) {
			fprintf(stderr, "%s: cannot extract kernels from %s (see the log)\n", astra_progname,
				cl.inputs.v[f]);
			ret = 1;
			astra_tu_release(&tu);
			continue;
		}
		if (strict)
			astra_diags_promote(&tu.diags);
		if (tu.diags.nr && strict)
			ret = 1;
		diags = astra_diags_format(&tu.diags);
		fputs(diags, stderr);
		free(diags);
		if (L.json)
			astra_json_push(astra_json_get(all, "files"), tu_json(&L, &tu));
		else
			print_text(&L, &tu);
		astra_tu_release(&tu);
	}
	if (L.json) {
		char *s = astra_json_print(all, 1);
		printf("%s\n", s);
		free(s);
		astra_json_free(all);
	}
	astra_cache_close(L.cache);
	free(L.nvcc_version);
	astra_search_path_release(&sp);
	astra_vec_clear(&L.archs);
	astra_cmdline_release(&cl);
	return ret;
}
