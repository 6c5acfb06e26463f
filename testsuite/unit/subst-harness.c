/*
 * subst-harness.c - `astra-cc --with-variant` for the tests, until the
 * libclang extractor (passes/extract.c, another branch) is merged.
 *
 * It runs the real command (passes/withvariant.c) with a throwaway kernel
 * scanner that understands only the simple, well-formatted test sources in
 * testsuite/cases/subst: an annotated kernel is the __global__ definition
 * after a `#pragma astra` line, in the main file or in a header it includes
 * with quotes.  It is not part of the product and goes away at the merge.
 *
 * Usage: subst-harness --with-variant NAME=FILE [...] -- nvcc ARGS...
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "astra-cc/buf.h"
#include "astra-cc/config.h"
#include "astra-cc/log.h"
#include "passes/withvariant.h"

static int idc(int c)
{
	return isalnum(c) || c == '_';
}

static unsigned line_at(const char *s, size_t off, unsigned *col)
{
	unsigned l = 1;
	size_t i, b = 0;
	for (i = 0; i < off; i++)
		if (s[i] == '\n')
			l++, b = i + 1;
	*col = (unsigned)(off - b + 1);
	return l;
}

static char *trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* Split [a, z) at top-level commas into "type name" pairs. */
static void split_decls(const char *a, const char *z, char ***types, char ***names, size_t *nr)
{
	const char *item = a, *p;
	int depth = 0;
	size_t alloc = 0;
	for (p = a; p <= z; p++) {
		if (p < z && strchr("(<[", *p))
			depth++;
		else if (p < z && strchr(")>]", *p))
			depth--;
		if (p == z || (*p == ',' && depth == 0)) {
			char *d = trim(item, (size_t)(p - item));
			size_t n = strlen(d);
			if (n) {
				size_t e = n;
				while (e && !idc((unsigned char)d[e - 1]))
					e--;
				while (e && idc((unsigned char)d[e - 1]))
					e--;
				ALLOC_GROW(*types, *nr + 1, alloc);
				*names = xrealloc(*names, alloc * sizeof(**names));
				(*types)[*nr] = trim(d, e);
				(*names)[*nr] = xstrdup(d + e);
				(*nr)++;
			}
			free(d);
			item = p + 1;
		}
	}
}

static const char *match(const char *p, const char *end, char open, char close)
{
	int depth = 0;
	for (; p < end; p++) {
		if (*p == open)
			depth++;
		else if (*p == close && --depth == 0)
			return p;
	}
	return NULL;
}

static void scan_kernels(struct astra_tu *tu, const char *file, const char *s, size_t len)
{
	const char *end = s + len, *p = s;
	while ((p = strstr(p, "#pragma astra")) != NULL && p < end) {
		struct astra_kernel k;
		const char *start, *g, *name, *open, *close, *body, *stop;
		size_t i;
		memset(&k, 0, sizeof(k));
		start = p;
		while (start < end && (!strncmp(start, "#pragma astra", 13) || *start == '\n')) {
			const char *nl = strchr(start, '\n');
			start = nl ? nl + 1 : end;
			while (start < end && *start == '\n')
				start++;
		}
		p = start;
		g = strstr(start, "__global__");
		if (!g)
			break;
		name = g + 10;
		for (;;) {
			while (isspace((unsigned char)*name))
				name++;
			if (!strncmp(name, "__launch_bounds__", 17)) {
				name = match(name, end, '(', ')') + 1;
				continue;
			}
			if (!strncmp(name, "void", 4) && !idc((unsigned char)name[4])) {
				name += 4;
				continue;
			}
			break;
		}
		open = name;
		while (idc((unsigned char)*open))
			open++;
		close = match(open, end, '(', ')');
		body = strchr(close, '{');
		stop = match(body, end, '{', '}') + 1;
		k.name = xstrndup(name, (size_t)(open - name));
		k.file = xstrdup(file);
		k.start = (size_t)(start - s);
		k.end = (size_t)(stop - s);
		k.body_start = (size_t)(body - s);
		k.text = xstrndup(start, (size_t)(stop - start));
		k.line = line_at(s, k.start, &k.col);
		if (!strncmp(start, "template", 8)) {
			const char *lt = strchr(start, '<'), *gt = match(lt, end, '<', '>');
			k.is_template = 1;
			split_decls(lt + 1, gt, &k.tmpl_kinds, &k.tmpl_params, &k.nr_tmpl);
		}
		{
			char **types = NULL, **names = NULL;
			size_t n = 0;
			split_decls(open + 1, close, &types, &names, &n);
			k.params = xcalloc(n ? n : 1, sizeof(*k.params));
			k.nr_params = n;
			for (i = 0; i < n; i++) {
				k.params[i].type = types[i];
				k.params[i].name = names[i];
				k.params[i].is_pointer = strchr(types[i], '*') != NULL;
			}
			free(types);
			free(names);
		}
		ALLOC_GROW(tu->kernels, tu->nr_kernels + 1, tu->alloc_kernels);
		tu->kernels[tu->nr_kernels++] = k;
		p = stop;
	}
}

static void scan_launches(struct astra_tu *tu)
{
	size_t i;
	const char *s = tu->text, *end = s + tu->len;
	for (i = 0; i < tu->nr_kernels; i++) {
		const char *name = tu->kernels[i].name, *p = s;
		size_t n = strlen(name);
		while ((p = strstr(p, name)) != NULL) {
			const char *q = p + n, *cfg, *args, *close;
			struct astra_launch l;
			if ((p > s && idc((unsigned char)p[-1])) || idc((unsigned char)*q)) {
				p = q;
				continue;
			}
			if (*q == '<' && strncmp(q, "<<<", 3))
				q = match(q, end, '<', '>') + 1;
			if (!q || strncmp(q, "<<<", 3)) {
				p += n;
				continue;
			}
			cfg = strstr(q, ">>>");
			args = cfg ? strchr(cfg, '(') : NULL;
			close = args ? match(args, end, '(', ')') : NULL;
			if (!close) {
				p += n;
				continue;
			}
			memset(&l, 0, sizeof(l));
			l.kernel = xstrndup(p, (size_t)(q - p));
			l.start = (size_t)(p - s);
			l.end = (size_t)(close + 1 - s);
			l.line = line_at(s, l.start, &l.col);
			ALLOC_GROW(tu->launches, tu->nr_launches + 1, tu->alloc_launches);
			tu->launches[tu->nr_launches++] = l;
			p = close;
		}
	}
}

/* A header named by an #include at p (after the '#include '), as the compiler would spell it. */
static char *find_header(const char *path, const char *p, const struct astra_cmdline *cl)
{
	char close = *p == '<' ? '>' : '"';
	const char *q = strchr(p + 1, close), *slash = strrchr(path, '/');
	char *name, *h;
	size_t i;
	if (!q)
		return NULL;
	name = xstrndup(p + 1, (size_t)(q - p - 1));
	if (close == '"') {
		h = xasprintf("%.*s%s", slash ? (int)(slash - path + 1) : 0, path, name);
		if (!access(h, R_OK)) {
			free(name);
			return h;
		}
		free(h);
	}
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++)
		if (!strcmp(cl->preproc_flags.v[i], "-I")) {
			h = xasprintf("%s/%s", cl->preproc_flags.v[i + 1], name);
			if (!access(h, R_OK)) {
				free(name);
				return h;
			}
			free(h);
		}
	free(name);
	return NULL;
}

static int scan_tu(struct astra_tu *tu, const char *path, const struct astra_cmdline *cl)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p;
	if (astra_buf_read_file(&b, path, 0) < 0)
		return -1;
	tu->path = xstrdup(path);
	tu->len = b.len;
	tu->text = astra_buf_detach(&b, NULL);
	scan_kernels(tu, path, tu->text, tu->len);
	for (p = tu->text; (p = strstr(p, "#include ")) != NULL; p++) {
		char *h = find_header(path, p + 9, cl);
		struct astra_buf hb = ASTRA_BUF_INIT;
		if (h && astra_buf_read_file(&hb, h, 0) == 0)
			scan_kernels(tu, h, hb.buf, hb.len);
		astra_buf_release(&hb);
		free(h);
	}
	scan_launches(tu);
	return 0;
}

/* The parts of kernel.c (extract branch) this harness needs. */
const struct astra_kernel *astra_tu_kernel(const struct astra_tu *tu, const char *name)
{
	size_t i;
	for (i = 0; i < tu->nr_kernels; i++)
		if (!strcmp(tu->kernels[i].name, name))
			return &tu->kernels[i];
	return NULL;
}

void astra_tu_release(struct astra_tu *tu)
{
	size_t i, j;
	for (i = 0; i < tu->nr_kernels; i++) {
		struct astra_kernel *k = &tu->kernels[i];
		free(k->name);
		free(k->file);
		free(k->text);
		for (j = 0; j < k->nr_params; j++) {
			free(k->params[j].name);
			free(k->params[j].type);
		}
		free(k->params);
		for (j = 0; j < k->nr_tmpl; j++) {
			free(k->tmpl_params[j]);
			free(k->tmpl_kinds[j]);
		}
		free(k->tmpl_params);
		free(k->tmpl_kinds);
	}
	for (i = 0; i < tu->nr_launches; i++)
		free(tu->launches[i].kernel);
	free(tu->kernels);
	free(tu->launches);
	free(tu->path);
	free(tu->text);
	memset(tu, 0, sizeof(*tu));
}

int main(int argc, char **argv)
{
	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	if (argc < 2)
		return 2;
	return astra_with_variant_run(argc - 1, argv + 1, scan_tu);
}
