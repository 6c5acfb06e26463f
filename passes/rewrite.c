/*
 * rewrite.c - the text of a substituted translation unit (see rewrite.h).
 *
 * This file needs to find a few things in C++ text that libclang has not
 * described: the kernel definition inside a variant (an optimizer's output,
 * never parsed by extract.c), the `<<<` and `>>>` of a launch site, the
 * template head of a kernel, and include directives.  It reads them from
 * front/lex.c's tokens (comments, string and character literals, raw
 * strings included, preprocessor lines), through a cursor that keeps the
 * walks below as simple as a scanner's.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/log.h"
#include "front/lex.h"
#include "passes/rewrite.h"

/* ------------------------------------------------------------------ scanner */

enum lk {
	LK_EOF,
	LK_IDENT,
	LK_NUMBER,
	LK_STRING,
	LK_CHAR,
	LK_PUNCT,
	LK_DIRECTIVE, /* a whole preprocessor line, continuations included */
};

struct ltok {
	enum lk kind;
	size_t start, end;
};

/*
 * A cursor over front/lex.c's tokens of s[from, len): each punctuation
 * character one token, unterminated literals and comments running to the
 * end (a variant's text is not judged here).  Offsets are into s.  pos is
 * the end of the token read last.
 */
struct lexer {
	const char *s;
	size_t len, base, pos;
	struct astra_lexed toks;  /* shared by copies of the cursor; lex_close frees it */
	size_t next;
};

static void lex_open(struct lexer *lx, const char *s, size_t from, size_t len)
{
	lx->s = s;
	lx->len = len;
	lx->base = from;
	lx->pos = from;
	lx->next = 0;
	astra_lex(s + from, len - from, ASTRA_LEX_ONE_CHAR | ASTRA_LEX_LENIENT, &lx->toks);
}

static void lex_close(struct lexer *lx)
{
	astra_lexed_release(&lx->toks);
}

/* Move the cursor to the first token that starts at or after off. */
static void lex_seek(struct lexer *lx, size_t off)
{
	size_t lo = 0, hi = lx->toks.nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lx->base + lx->toks.toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	lx->next = lo;
	lx->pos = off;
}

static int tok_is(const struct lexer *lx, const struct ltok *t, const char *text)
{
	size_t n = strlen(text);
	return t->end - t->start == n && !memcmp(lx->s + t->start, text, n);
}

static int lex_next(struct lexer *lx, struct ltok *t)
{
	static const enum lk kinds[] = {
		[ASTRA_LEX_IDENT] = LK_IDENT,   [ASTRA_LEX_NUMBER] = LK_NUMBER, [ASTRA_LEX_STRING] = LK_STRING,
		[ASTRA_LEX_CHAR] = LK_CHAR,     [ASTRA_LEX_PUNCT] = LK_PUNCT,   [ASTRA_LEX_PP] = LK_DIRECTIVE,
		[ASTRA_LEX_COMMENT] = LK_EOF,
	};
	const struct astra_lex_tok *x;

	if (lx->next >= lx->toks.nr) {
		t->kind = LK_EOF;
		t->start = t->end = lx->len;
		lx->pos = lx->len;
		return LK_EOF;
	}
	x = &lx->toks.toks[lx->next++];
	t->kind = kinds[x->kind];
	t->start = lx->base + x->off;
	t->end = t->start + x->len;
	if (t->kind == LK_DIRECTIVE)
		/* the lexer trims the blanks before the newline; the directive's line keeps them */
		while (t->end < lx->len && (lx->s[t->end] == ' ' || lx->s[t->end] == '\t' || lx->s[t->end] == '\r'))
			t->end++;
	lx->pos = t->end;
	return t->kind;
}

/* Single-character punctuator test. */
static int punct(const struct lexer *lx, const struct ltok *t, char c)
{
	return t->kind == LK_PUNCT && lx->s[t->start] == c;
}

/* Three adjacent punctuators c at t->start (<<< or >>>). */
static int triple(const struct lexer *lx, const struct ltok *t, char c)
{
	return t->kind == LK_PUNCT && t->start + 3 <= lx->len && lx->s[t->start] == c &&
	       lx->s[t->start + 1] == c && lx->s[t->start + 2] == c;
}

/*
 * Skip a balanced group whose opening token (one of ( [ {) was just read,
 * leaving lx after the matching closer.  Returns 0, or -1 at the end.
 */
static int skip_group(struct lexer *lx)
{
	struct ltok t;
	int depth = 1;
	while (lex_next(lx, &t) != LK_EOF) {
		char c = lx->s[t.start];
		if (t.kind != LK_PUNCT)
			continue;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return 0;
	}
	return -1;
}

/* --------------------------------------------------------- kernel in text */

/* Where a __global__ function's definition lies in a text. */
struct kdef {
	size_t start;      /* first token of the declaration */
	size_t name, name_end;
	size_t body;       /* the '{' */
	size_t end;        /* after the closing '}' */
};

/* find_kernel_def over an open cursor. */
static int find_kernel_def_in(struct lexer *lxp, const char *name, struct kdef *out)
{
	struct lexer lx = *lxp; /* a copy of the cursor: the tokens stay lxp's */
	struct ltok t;
	size_t boundary = 0; /* after the last top-level ; } or directive */
	int depth = 0, found = 0;

	while (lex_next(&lx, &t) != LK_EOF) {
		if (t.kind == LK_DIRECTIVE) {
			if (depth == 0)
				boundary = t.end;
			continue;
		}
		if (punct(&lx, &t, '{')) {
			depth++;
			continue;
		}
		if (punct(&lx, &t, '}')) {
			if (depth > 0 && --depth == 0)
				boundary = t.end;
			continue;
		}
		if (depth == 0 && punct(&lx, &t, ';')) {
			boundary = t.end;
			continue;
		}
		if (depth == 0 && t.kind == LK_IDENT && tok_is(&lx, &t, "__global__")) {
			struct kdef d;
			struct lexer save;
			int ok = 0;
			/* The first token of this declaration. */
			{
				struct lexer b = lx;
				struct ltok bt;
				lex_seek(&b, boundary);
				lex_next(&b, &bt);
				while (bt.kind == LK_DIRECTIVE && bt.end <= t.start)
					lex_next(&b, &bt);
				d.start = bt.start <= t.start ? bt.start : t.start;
			}
			/* The declarator: `name (`, skipping __launch_bounds__(...) etc. */
			while (lex_next(&lx, &t) != LK_EOF) {
				if (punct(&lx, &t, ';') || punct(&lx, &t, '{'))
					break;
				if (punct(&lx, &t, '(')) {
					if (skip_group(&lx) < 0)
						return found;
					continue;
				}
				if (t.kind == LK_IDENT && tok_is(&lx, &t, name)) {
					struct ltok p;
					save = lx;
					if (lex_next(&lx, &p) == LK_PUNCT && punct(&lx, &p, '(')) {
						d.name = t.start;
						d.name_end = t.end;
						if (skip_group(&lx) < 0)
							return found;
						ok = 1;
						break;
					}
					lx = save;
				}
			}
			if (!ok) {
				if (punct(&lx, &t, '{'))
					depth++;
				else if (punct(&lx, &t, ';'))
					boundary = t.end;
				continue;
			}
			/* After the parameters: attributes, then the body or a ';'. */
			while (lex_next(&lx, &t) != LK_EOF) {
				if (t.kind == LK_IDENT)
					continue;
				if (punct(&lx, &t, '(') || punct(&lx, &t, '[')) {
					if (skip_group(&lx) < 0)
						return found;
					continue;
				}
				break;
			}
			if (punct(&lx, &t, ';')) {
				boundary = t.end;
				continue;
			}
			if (!punct(&lx, &t, '{'))
				continue;
			d.body = t.start;
			if (skip_group(&lx) < 0)
				return found;
			d.end = lx.pos;
			boundary = d.end;
			if (!found)
				*out = d;
			found++;
		}
	}
	return found;
}

/*
 * Find the definition of the __global__ function `name` in s.  Returns the
 * number of such definitions (the caller wants exactly one).
 */
static int find_kernel_def(const char *s, size_t len, const char *name, struct kdef *out)
{
	struct lexer lx;
	int found;
	lex_open(&lx, s, 0, len);
	found = find_kernel_def_in(&lx, name, out);
	lex_close(&lx);
	return found;
}

/*
 * Copy of text with every `#pragma astra` line blanked (its newlines kept,
 * so that line numbers do not move).
 */
static char *blank_astra_pragmas(const char *s, size_t len)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct lexer lx;
	struct ltok t;
	size_t last = 0;

	lex_open(&lx, s, 0, len);
	while (lex_next(&lx, &t) != LK_EOF) {
		const char *p;
		size_t i;
		if (t.kind != LK_DIRECTIVE)
			continue;
		p = s + t.start + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "pragma", 6) || !(p[6] == ' ' || p[6] == '\t'))
			continue;
		p += 6;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "astra", 5) || astra_lex_ident_char((unsigned char)p[5]))
			continue;
		astra_buf_add(&b, s + last, t.start - last);
		for (i = t.start; i < t.end; i++)
			if (s[i] == '\n')
				astra_buf_addch(&b, '\n');
		last = t.end;
	}
	lex_close(&lx);
	astra_buf_add(&b, s + last, len - last);
	return astra_buf_detach(&b, NULL);
}

/* ---------------------------------------------------------------- geometry */

int astra_variant_has_geometry(const struct astra_variant *v)
{
	return v->grid || v->block || v->shmem;
}

int astra_subst_has_launcher(const struct astra_subst *s)
{
	return s->dispatch || astra_variant_has_geometry(s->variant);
}

/* ------------------------------------------------------------------- edits */

void astra_edits_add(struct astra_edits *e, size_t start, size_t end, char *text, int framed)
{
	ALLOC_GROW(e->v, e->nr + 1, e->alloc);
	e->v[e->nr].start = start;
	e->v[e->nr].end = end;
	e->v[e->nr].text = text;
	e->v[e->nr].framed = framed;
	e->nr++;
}

void astra_edits_release(struct astra_edits *e)
{
	size_t i;
	for (i = 0; i < e->nr; i++)
		free(e->v[i].text);
	free(e->v);
	e->v = NULL;
	e->nr = e->alloc = 0;
}

static int cmp_edit(const void *a, const void *b)
{
	const struct astra_edit *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* `#line N "file"` for the line that follows; name escaped for a string literal. */
static int add_line_directive(struct astra_buf *out, unsigned long line, const char *name)
{
	const char *p;
	astra_buf_addf(out, "#line %lu \"", line);
	for (p = name; *p; p++) {
		if (*p == '\n' || *p == '\r')
			return error("cannot name %s in a #line directive", name);
		if (*p == '"' || *p == '\\')
			astra_buf_addch(out, '\\');
		astra_buf_addch(out, *p);
	}
	astra_buf_adds(out, "\"\n");
	return 0;
}

static unsigned long line_of(const char *s, size_t off)
{
	unsigned long n = 1;
	size_t i;
	for (i = 0; i < off; i++)
		if (s[i] == '\n')
			n++;
	return n;
}

/* Blanks with the display width of s[line start .. off): tabs kept. */
static void add_indent(struct astra_buf *out, const char *s, size_t off)
{
	size_t b = off;
	while (b > 0 && s[b - 1] != '\n')
		b--;
	for (; b < off; b++) {
		unsigned char c = (unsigned char)s[b];
		if (c == '\t')
			astra_buf_addch(out, '\t');
		else if ((c & 0xc0) != 0x80)
			astra_buf_addch(out, ' ');
	}
}

int astra_edits_apply(struct astra_edits *e, const char *src, size_t len, const char *spelling,
		      struct astra_buf *out)
{
	size_t i, pos = 0;

	if (e->nr)
		qsort(e->v, e->nr, sizeof(*e->v), cmp_edit);
	for (i = 0; i < e->nr; i++) {
		if (e->v[i].start > e->v[i].end || e->v[i].end > len)
			return error("rewrite: an edit lies outside %s", spelling);
		if (i && e->v[i].start < e->v[i - 1].end)
			return error("rewrite: overlapping edits in %s", spelling);
	}
	if (add_line_directive(out, 1, spelling) < 0)
		return -1;
	for (i = 0; i < e->nr; i++) {
		const struct astra_edit *ed = &e->v[i];
		astra_buf_add(out, src + pos, ed->start - pos);
		if (ed->framed) {
			if (out->len && out->buf[out->len - 1] != '\n')
				astra_buf_addch(out, '\n');
			astra_buf_adds(out, ed->text);
			if (out->len && out->buf[out->len - 1] != '\n')
				astra_buf_addch(out, '\n');
			add_line_directive(out, line_of(src, ed->end), spelling);
			add_indent(out, src, ed->end);
		} else {
			astra_buf_adds(out, ed->text);
		}
		pos = ed->end;
	}
	astra_buf_add(out, src + pos, len - pos);
	return 0;
}

/* ----------------------------------------------------------------- kernels */

char *astra_rewrite_variant_name(const char *kernel)
{
	return xasprintf("__astra_v_%s", kernel);
}

char *astra_rewrite_launcher_name(const char *kernel)
{
	return xasprintf("__astra_launch_%s", kernel);
}

/* A C comment naming the variant's origin, reduced to harmless characters. */
static void add_origin_comment(struct astra_buf *b, const struct astra_variant *v)
{
	const char *p = v->origin ? v->origin : "variant";
	astra_buf_adds(b, " /* astra-cc: ");
	for (; *p; p++)
		astra_buf_addch(b, isalnum((unsigned char)*p) || strchr(" :,._+-=", *p) ? *p : '_');
	astra_buf_adds(b, " */\n");
}

/* (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000) */
static void add_arch_test(struct astra_buf *b, const struct astra_subst *s)
{
	size_t i;
	astra_buf_addch(b, '(');
	for (i = 0; i < s->nr_ccs; i++)
		astra_buf_addf(b, "%s__CUDA_ARCH__ == %d", i ? " || " : "", s->ccs[i] * 10);
	astra_buf_addch(b, ')');
}

static void add_text_line(struct astra_buf *b, const char *s, size_t n)
{
	astra_buf_add(b, s, n);
	if (!n || s[n - 1] != '\n')
		astra_buf_addch(b, '\n');
}

/* The template head of a kernel definition ("template <typename T, int N = 4>"), or NULL. */
static char *template_head(const struct astra_kernel *k)
{
	struct lexer lx;
	struct ltok t;
	int depth = 0;
	char *head = NULL;

	lex_open(&lx, k->text, 0, strlen(k->text));
	if (lex_next(&lx, &t) != LK_IDENT || !tok_is(&lx, &t, "template"))
		goto out;
	if (lex_next(&lx, &t) != LK_PUNCT || !punct(&lx, &t, '<'))
		goto out;
	depth = 1;
	while (lex_next(&lx, &t) != LK_EOF) {
		if (punct(&lx, &t, '(') || punct(&lx, &t, '[') || punct(&lx, &t, '{')) {
			if (skip_group(&lx) < 0)
				goto out;
			continue;
		}
		if (punct(&lx, &t, '<')) {
			depth++;
		} else if (punct(&lx, &t, '>') && --depth == 0) {
			head = xstrndup(k->text, t.end);
			break;
		}
	}
out:
	lex_close(&lx);
	return head;
}

/* "<T, N, Ts...>" for forwarding the template parameters, or "". */
static char *template_args(const struct astra_kernel *k)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (!k->is_template || !k->nr_tmpl)
		return xstrdup("");
	astra_buf_addch(&b, '<');
	for (i = 0; i < k->nr_tmpl; i++) {
		astra_buf_addf(&b, "%s%s", i ? ", " : "", k->tmpl_params[i]);
		if (k->tmpl_kinds && k->tmpl_kinds[i] && strstr(k->tmpl_kinds[i], "..."))
			astra_buf_adds(&b, "...");
	}
	astra_buf_addch(&b, '>');
	return astra_buf_detach(&b, NULL);
}

/*
 * A static member of each pending-configuration struct: does the code
 * loaded for the current device come from, and run on, an architecture the
 * variant was verified on?  Cached per device by the caller.
 */
static const char variant_ok_member[] =
	"\tstatic int __astra_ok(volatile signed char *__astra_c, const void *__astra_f,\n"
	"\t\t\t     const int *__astra_cc, int __astra_n)\n"
	"\t{\n"
	"\t\tint __astra_d = 0, __astra_i;\n"
	"\t\tif (cudaGetDevice(&__astra_d) != cudaSuccess) {\n"
	"\t\t\t(void)cudaGetLastError();\n"
	"\t\t\treturn 0;\n"
	"\t\t}\n"
	"\t\tif (__astra_d < 0 || __astra_d >= 64)\n"
	"\t\t\treturn 0;\n"
	"\t\tif (!__astra_c[__astra_d]) {\n"
	"\t\t\tcudaFuncAttributes __astra_a;\n"
	"\t\t\tsigned char __astra_v = -1;\n"
	"\t\t\t/* The first launch may come inside the user's stream capture. */\n"
	"\t\t\tcudaStreamCaptureMode __astra_m = cudaStreamCaptureModeRelaxed;\n"
	"\t\t\tint __astra_x = cudaThreadExchangeStreamCaptureMode(&__astra_m) == cudaSuccess;\n"
	"\t\t\tif (!__astra_x)\n"
	"\t\t\t\t(void)cudaGetLastError();\n"
	"\t\t\tif (cudaFuncGetAttributes(&__astra_a, __astra_f) == cudaSuccess) {\n"
	"\t\t\t\tfor (__astra_i = 0; __astra_i < __astra_n; __astra_i++)\n"
	"\t\t\t\t\tif (__astra_a.ptxVersion == __astra_cc[__astra_i] &&\n"
	"\t\t\t\t\t    __astra_a.binaryVersion == __astra_cc[__astra_i])\n"
	"\t\t\t\t\t\t__astra_v = 1;\n"
	"\t\t\t} else {\n"
	"\t\t\t\t(void)cudaGetLastError();\n"
	"\t\t\t}\n"
	"\t\t\tif (__astra_x)\n"
	"\t\t\t\t(void)cudaThreadExchangeStreamCaptureMode(&__astra_m);\n"
	"\t\t\t__astra_c[__astra_d] = __astra_v;\n"
	"\t\t}\n"
	"\t\treturn __astra_c[__astra_d] > 0;\n"
	"\t}\n";

/* The launcher's parameter list and the forwarded argument list. */
static int launcher_params(const struct astra_kernel *k, struct astra_buf *decl, struct astra_buf *fwd)
{
	size_t i;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		char *name = p->name && *p->name ? xstrdup(p->name) : xasprintf("__astra_p%zu", i);
		if (!p->type || strpbrk(p->type, "[(")) {
			error("%s: cannot repeat the type of parameter %zu (%s) in a launcher", k->name, i,
			      p->type ? p->type : "unknown");
			free(name);
			return -1;
		}
		astra_buf_addf(decl, ", %s %s", p->type, name);
		astra_buf_addf(fwd, "%s%s", i ? ", " : "", name);
		free(name);
	}
	return 0;
}

/*
 * The line to give the variant's first line so that its kernel definition
 * lands on the original's line (diagnostics and assert() then point at the
 * kernel in the user's file).
 */
static unsigned long variant_first_line(const char *src, const struct astra_kernel *k, const char *vtext)
{
	unsigned long kline = line_of(src, k->start), before;
	struct kdef d;
	if (find_kernel_def(vtext, strlen(vtext), k->name, &d) != 1)
		return kline;
	before = line_of(vtext, d.start) - 1;
	return before < kline ? kline - before : 1;
}

static int rewrite_in_place(struct astra_edits *e, const char *src, const char *spelling,
			    const struct astra_subst *s, const char *vtext, const char *extra)
{
	const struct astra_kernel *k = s->kernel;
	struct astra_buf b = ASTRA_BUF_INIT;
	unsigned long kline = line_of(src, k->start);

	astra_buf_adds(&b, "#if defined(__CUDA_ARCH__) && ");
	add_arch_test(&b, s);
	add_origin_comment(&b, s->variant);
	add_line_directive(&b, variant_first_line(src, k, vtext), spelling);
	add_text_line(&b, vtext, strlen(vtext));
	astra_buf_adds(&b, "#else\n");
	add_line_directive(&b, kline, spelling);
	add_indent(&b, src, k->start);
	add_text_line(&b, src + k->start, k->end - k->start);
	astra_buf_adds(&b, "#endif\n");
	if (extra)
		astra_buf_adds(&b, extra);
	astra_edits_add(e, k->start, k->end, astra_buf_detach(&b, NULL), 1);
	return 0;
}

/*
 * A variant under a private name (vname) for the verified architectures
 * and the host pass; on any other architecture a stub with the same
 * signature that traps (the host pass registers the kernel for every
 * architecture; it is never launched there).  d: where the kernel is in
 * vtext.
 */
static void add_private_variant(struct astra_buf *b, const char *src, const char *spelling,
				const struct astra_subst *s, const struct astra_variant *v, const char *vtext,
				const struct kdef *d, const char *vname)
{
	const struct astra_kernel *k = s->kernel;
	size_t vlen = strlen(vtext);
	astra_buf_adds(b, "#if !defined(__CUDA_ARCH__) || ");
	add_arch_test(b, s);
	add_origin_comment(b, v);
	add_line_directive(b, variant_first_line(src, k, vtext), spelling);
	astra_buf_add(b, vtext, d->name);
	astra_buf_adds(b, vname);
	add_text_line(b, vtext + d->name_end, vlen - d->name_end);
	astra_buf_adds(b, "#else /* an architecture the variant was not verified on: never launched */\n");
	add_line_directive(b, line_of(src, k->start), spelling);
	astra_buf_add(b, vtext + d->start, d->name - d->start);
	astra_buf_adds(b, vname);
	astra_buf_add(b, vtext + d->name_end, d->body - d->name_end);
	astra_buf_adds(b, "{ __trap(); }\n#endif\n");
}

/*
 * The pending-configuration struct that carries a site's <<<...>>> to its
 * launcher (see the comment where it is used), with the run-time
 * architecture test unless every launch may go to the variant (direct).
 */
static void add_pending(struct astra_buf *b, const char *pname, const char *gname, int direct)
{
	astra_buf_addf(b, "namespace {\n"
		       "struct %s {\n"
		       "\tdim3 __astra_grid, __astra_block;\n"
		       "\tsize_t __astra_shmem;\n"
		       "\tcudaStream_t __astra_stream;\n"
		       "\t%s *__astra_prev;\n"
		       "\tint __astra_used;\n"
		       "\tstatic %s *&__astra_top()\n\t{\n"
		       "\t\tstatic thread_local %s *__astra_t = 0;\n"
		       "\t\treturn __astra_t;\n\t}\n"
		       "\t%s(dim3 __astra_g, dim3 __astra_b, size_t __astra_s, cudaStream_t __astra_st)\n"
		       "\t\t: __astra_grid(__astra_g), __astra_block(__astra_b), __astra_shmem(__astra_s),\n"
		       "\t\t  __astra_stream(__astra_st), __astra_prev(__astra_top()), __astra_used(0)\n"
		       "\t{\n\t\t__astra_top() = this;\n\t}\n"
		       "\t~%s()\n\t{\n\t\tif (__astra_top() == this)\n\t\t\t__astra_top() = __astra_prev;\n\t}\n"
		       "\t%s(const %s &) = delete;\n"
		       "\t%s &operator=(const %s &) = delete;\n"
		       "\texplicit operator bool() const\n\t{\n\t\treturn false;\n\t}\n"
		       "\tstatic %s *__astra_take()\n\t{\n"
		       "\t\t%s *__astra_p = __astra_top();\n"
		       "\t\twhile (__astra_p && __astra_p->__astra_used)\n"
		       "\t\t\t__astra_p = __astra_p->__astra_prev;\n"
		       "\t\tif (__astra_p)\n\t\t\t__astra_p->__astra_used = 1;\n"
		       "\t\treturn __astra_p;\n\t}\n%s"
		       "};\n"
		       "namespace %s {\n"
		       "template <typename __astra_A, typename __astra_B>\n"
		       "inline auto min(__astra_A __astra_a, __astra_B __astra_b) -> decltype(true ? __astra_A() : __astra_B())\n"
		       "{\n\treturn __astra_b < __astra_a ? __astra_b : __astra_a;\n}\n"
		       "template <typename __astra_A, typename __astra_B>\n"
		       "inline auto max(__astra_A __astra_a, __astra_B __astra_b) -> decltype(true ? __astra_A() : __astra_B())\n"
		       "{\n\treturn __astra_a < __astra_b ? __astra_b : __astra_a;\n}\n"
		       "}\n"
		       "}\n",
		       pname, pname, pname, pname, pname, pname, pname, pname, pname, pname, pname, pname,
		       direct ? "" : variant_ok_member, gname);
}

/*
 * vname<targs><<<the variant's geometry, or the site's where it gives
 * none; the site's stream>>>(fwd); each line indented by ind.  More than
 * 48 KiB of dynamic shared memory needs the kernel's attribute raised
 * first: the user's code raised it for the original, but the variant is
 * another function, so the launcher raises it for the variant (the
 * attribute call is per device and cheap).
 */
static void add_variant_launch(struct astra_buf *b, const char *vname, const char *targs,
			       const struct astra_variant *v, const char *fwd, const char *ind)
{
	char *shm = v->shmem ? xasprintf("(size_t)(%s)", v->shmem) : xstrdup("__astra_p->__astra_shmem");
	astra_buf_addf(b, "%sif (%s > 48 * 1024)\n%s\t(void)cudaFuncSetAttribute((const void *)%s%s, "
		       "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)%s);\n",
		       ind, shm, ind, vname, targs, shm);
	free(shm);
	astra_buf_addf(b, "%s%s%s<<<", ind, vname, targs);
	if (v->grid)
		astra_buf_addf(b, "dim3(%s), ", v->grid);
	else
		astra_buf_adds(b, "__astra_p->__astra_grid, ");
	if (v->block)
		astra_buf_addf(b, "dim3(%s), ", v->block);
	else
		astra_buf_adds(b, "__astra_p->__astra_block, ");
	if (v->shmem)
		astra_buf_addf(b, "(size_t)(%s), ", v->shmem);
	else
		astra_buf_adds(b, "__astra_p->__astra_shmem, ");
	astra_buf_addf(b, "__astra_p->__astra_stream>>>(%s);\n", fwd);
}

static int rewrite_with_geometry(struct astra_edits *e, const char *src, const char *spelling,
				 const struct astra_subst *s, const char *vtext, const char *extra)
{
	const struct astra_kernel *k = s->kernel;
	const struct astra_variant *v = s->variant;
	struct astra_buf b = ASTRA_BUF_INIT, decl = ASTRA_BUF_INIT, fwd = ASTRA_BUF_INIT;
	char *vname = astra_rewrite_variant_name(k->name);
	char *lname = astra_rewrite_launcher_name(k->name);
	char *pname = xasprintf("__astra_pending_%s", k->name);
	char *gname = xasprintf("__astra_geo_%s", k->name);
	char *head = k->is_template ? template_head(k) : NULL;
	char *targs = template_args(k);
	struct kdef d;
	size_t i, vlen = strlen(vtext);
	int ret = -1;

	if (k->is_template && !head) {
		error("%s: cannot find the template head of the kernel", k->name);
		goto out;
	}
	if (launcher_params(k, &decl, &fwd) < 0)
		goto out;
	if (find_kernel_def(vtext, vlen, k->name, &d) != 1) {
		error("%s: the variant must define __global__ %s exactly once", k->name, k->name);
		goto out;
	}

	add_private_variant(&b, src, spelling, s, v, vtext, &d, vname);

	/*
	 * A site becomes
	 *     (__astra_pending_K(cfg) ? (void)0 : __astra_launch_K(args))
	 * the way nvcc itself lowers name<<<cfg>>>(args): the condition is
	 * sequenced before the arguments (so the configuration is evaluated
	 * first, and no compiler warns about the order), each argument is
	 * evaluated once with a call's conversions, and the expression is
	 * void.  The condition is a temporary that lives to the end of the
	 * full-expression and registers itself in a per-thread chain, which
	 * the launcher reads (the innermost configuration not yet used, so
	 * launches nested in the arguments keep their own); its destructor
	 * unlinks it, also when an argument throws.  Both live in an unnamed
	 * namespace: kernels of the same name in two files must not share an
	 * inline function.
	 */
	add_pending(&b, pname, gname, s->direct);
	astra_buf_addf(&b, "%s%sstatic inline void %s(%s)\n{\n", head ? head : "", head ? "\n" : "", lname,
		       decl.len > 2 ? decl.buf + 2 : "");
	astra_buf_addf(&b, "\t%s *__astra_p = %s::__astra_take();\n", pname, pname);
	/* min and max of mixed types in the variant's geometry (the CUDA headers' are ambiguous) */
	astra_buf_addf(&b, "\tusing %s::min;\n\tusing %s::max;\n", gname, gname);
	if (s->direct) {
		/* Every device pass has the variant: no test, and the original is not named. */
		astra_buf_adds(&b, "\tif (!__astra_p)\n\t\treturn;\n");
	} else {
		astra_buf_adds(&b, "\tstatic volatile signed char __astra_c[64];\n");
		astra_buf_adds(&b, "\tstatic const int __astra_cc[] = { ");
		for (i = 0; i < s->nr_ccs; i++)
			astra_buf_addf(&b, "%s%d", i ? ", " : "", s->ccs[i]);
		astra_buf_adds(&b, " };\n\tif (!__astra_p)\n\t\treturn;\n");
		astra_buf_addf(&b, "\tif (%s::__astra_ok(__astra_c, (const void *)%s%s, __astra_cc, %zu)) {\n",
			       pname, vname, targs, s->nr_ccs);
	}
	add_variant_launch(&b, vname, targs, v, fwd.buf, s->direct ? "\t" : "\t\t");
	if (!s->direct)
		astra_buf_addf(&b, "\t} else\n\t\t%s%s<<<__astra_p->__astra_grid, __astra_p->__astra_block, "
			       "__astra_p->__astra_shmem, __astra_p->__astra_stream>>>(%s);\n",
			       k->name, targs, fwd.buf);
	astra_buf_adds(&b, "}\n");
	if (extra)
		astra_buf_adds(&b, extra);
	astra_edits_add(e, k->end, k->end, astra_buf_detach(&b, NULL), 1);
	ret = 0;
out:
	astra_buf_release(&b);
	astra_buf_release(&decl);
	astra_buf_release(&fwd);
	free(vname);
	free(lname);
	free(pname);
	free(gname);
	free(head);
	free(targs);
	return ret;
}

/*
 * Shape dispatch: every variant of the set under a private name
 * (__astra_v1_K, __astra_v2_K, ...; a variant that keeps the original
 * geometry is launched with the site's), the choice function, and a
 * launcher that asks it which version this launch runs.  The original stays
 * untouched and is one of the choices.
 */
static int rewrite_dispatch(struct astra_edits *e, const char *src, const char *spelling,
			    const struct astra_subst *s, const char *extra)
{
	const struct astra_kernel *k = s->kernel;
	const struct astra_dispatch *dp = s->dispatch;
	struct astra_buf b = ASTRA_BUF_INIT, decl = ASTRA_BUF_INIT, fwd = ASTRA_BUF_INIT;
	char *lname = astra_rewrite_launcher_name(k->name);
	char *pname = xasprintf("__astra_pending_%s", k->name);
	char *gname = xasprintf("__astra_geo_%s", k->name);
	char *cname = xasprintf("__astra_choose_%s", k->name);
	char *head = k->is_template ? template_head(k) : NULL;
	char *targs = template_args(k);
	char **vnames = xcalloc(s->nr_variants + 1, sizeof(char *));
	int orig_chosen = 0, ret = -1;
	size_t i, j;

	if (k->is_template && !head) {
		error("%s: cannot find the template head of the kernel", k->name);
		goto out;
	}
	if (launcher_params(k, &decl, &fwd) < 0)
		goto out;
	if ((size_t)dp->nr_versions != s->nr_variants + 1) {
		error("%s: the choice is among %d versions, the set has %zu variants", k->name, dp->nr_versions,
		      s->nr_variants);
		goto out;
	}
	/* The choice reads scalar parameters of this kernel, and nothing else. */
	for (j = 0; j < dp->nr_params; j++) {
		int found = 0;
		for (i = 0; i < k->nr_params; i++)
			if (k->params[i].name && !strcmp(k->params[i].name, dp->params[j]) && !k->params[i].is_pointer)
				found = 1;
		if (!found) {
			error("%s: the choice reads `%s`, which is not a scalar parameter of the kernel", k->name,
			      dp->params[j]);
			goto out;
		}
	}
	for (i = 0; i < dp->nr_points; i++)
		if (dp->choice[i] == 0)
			orig_chosen = 1;

	for (i = 0; i < s->nr_variants; i++) {
		char *vtext = blank_astra_pragmas(s->variants[i].text, strlen(s->variants[i].text));
		struct kdef d;
		vnames[i] = xasprintf("__astra_v%zu_%s", i + 1, k->name);
		if (find_kernel_def(vtext, strlen(vtext), k->name, &d) != 1) {
			error("%s: variant %zu must define __global__ %s exactly once", k->name, i + 1, k->name);
			free(vtext);
			goto out;
		}
		add_private_variant(&b, src, spelling, s, &s->variants[i], vtext, &d, vnames[i]);
		free(vtext);
	}
	add_pending(&b, pname, gname, s->direct);
	astra_dispatch_emit(dp, cname, &b);
	astra_buf_addf(&b, "%s%sstatic inline void %s(%s)\n{\n", head ? head : "", head ? "\n" : "", lname,
		       decl.len > 2 ? decl.buf + 2 : "");
	astra_buf_addf(&b, "\t%s *__astra_p = %s::__astra_take();\n", pname, pname);
	astra_buf_addf(&b, "\tusing %s::min;\n\tusing %s::max;\n", gname, gname);
	if (!s->direct) {
		astra_buf_adds(&b, "\tstatic volatile signed char __astra_c[64];\n");
		astra_buf_adds(&b, "\tstatic const int __astra_cc[] = { ");
		for (i = 0; i < s->nr_ccs; i++)
			astra_buf_addf(&b, "%s%d", i ? ", " : "", s->ccs[i]);
		astra_buf_adds(&b, " };\n");
	}
	astra_buf_adds(&b, "\tif (!__astra_p)\n\t\treturn;\n");
	astra_buf_addf(&b, "\tswitch (%s(", cname);
	for (j = 0; j < dp->nr_params; j++)
		astra_buf_addf(&b, "%s(double)(%s)", j ? ", " : "", dp->params[j]);
	astra_buf_adds(&b, ")) {\n");
	for (i = 0; i < s->nr_variants; i++) {
		int last = !orig_chosen && s->direct && i + 1 == s->nr_variants;
		/* Without the original among the choices, the last variant is the default: nothing else is named. */
		astra_buf_addf(&b, last ? "\tdefault:\n" : "\tcase %zu:\n", i + 1);
		if (!s->direct)
			astra_buf_addf(&b, "\t\tif (!%s::__astra_ok(__astra_c, (const void *)%s%s, __astra_cc, %zu))\n"
				       "\t\t\tbreak;\n", pname, vnames[i], targs, s->nr_ccs);
		add_variant_launch(&b, vnames[i], targs, &s->variants[i], fwd.buf, "\t\t");
		astra_buf_adds(&b, "\t\treturn;\n");
	}
	/* A default label either way (-Wswitch-default): the original runs after the switch. */
	if (orig_chosen || !s->direct)
		astra_buf_adds(&b, "\tdefault:\n\t\tbreak;\n");
	astra_buf_adds(&b, "\t}\n");
	if (orig_chosen || !s->direct)
		astra_buf_addf(&b, "\t%s%s<<<__astra_p->__astra_grid, __astra_p->__astra_block, "
			       "__astra_p->__astra_shmem, __astra_p->__astra_stream>>>(%s);\n",
			       k->name, targs, fwd.buf);
	astra_buf_adds(&b, "}\n");
	if (extra)
		astra_buf_adds(&b, extra);
	astra_edits_add(e, k->end, k->end, astra_buf_detach(&b, NULL), 1);
	ret = 0;
out:
	for (i = 0; i < s->nr_variants; i++)
		free(vnames[i]);
	free(vnames);
	astra_buf_release(&b);
	astra_buf_release(&decl);
	astra_buf_release(&fwd);
	free(lname);
	free(pname);
	free(gname);
	free(cname);
	free(head);
	free(targs);
	return ret;
}

int astra_rewrite_kernel(struct astra_edits *e, const char *src, size_t len, const char *spelling,
			 const struct astra_subst *s, const char *extra)
{
	const struct astra_kernel *k = s->kernel;
	char *vtext;
	int ret;

	if (!s->nr_ccs)
		return error("%s: no architecture the variant was verified on", k->name);
	if (!s->variant || !s->variant->text)
		return error("%s: no variant text", k->name);
	if (k->start >= k->end || k->end > len || !k->name)
		return error("%s: the kernel's position in %s is unknown", k->name ? k->name : "?", spelling);
	if (!k->text || strlen(k->text) != k->end - k->start || memcmp(k->text, src + k->start, k->end - k->start))
		return error("%s: %s changed since it was parsed", k->name, spelling);
	if (s->dispatch)
		return rewrite_dispatch(e, src, spelling, s, extra);
	vtext = blank_astra_pragmas(s->variant->text, strlen(s->variant->text));
	if (astra_variant_has_geometry(s->variant))
		ret = rewrite_with_geometry(e, src, spelling, s, vtext, extra);
	else
		ret = rewrite_in_place(e, src, spelling, s, vtext, extra);
	free(vtext);
	return ret;
}

/* ------------------------------------------------------------ launch sites */

/* A launch site, as found in the text. */
struct site {
	size_t name, name_end;   /* the kernel's name in the callee */
	size_t cfg[5];           /* starts of the config items, then the position of >>> */
	size_t nr_cfg;
	size_t paren;            /* the '(' of the arguments */
};

static int parse_site_in(struct lexer *lxp, const char *kname, struct site *out)
{
	struct lexer lx = *lxp; /* a copy of the cursor: the tokens stay lxp's */
	const char *s = lx.s;
	struct ltok t;
	int found_name = 0, depth = 0;

	/* The callee, up to <<<. */
	for (;;) {
		if (lex_next(&lx, &t) == LK_EOF || t.kind == LK_DIRECTIVE)
			return -1;
		if (triple(&lx, &t, '<'))
			break;
		if (t.kind == LK_IDENT && tok_is(&lx, &t, kname)) {
			out->name = t.start;
			out->name_end = t.end;
			found_name = 1;
		}
	}
	if (!found_name)
		return -1;
	lex_seek(&lx, t.start + 3);
	out->nr_cfg = 0;
	out->cfg[out->nr_cfg++] = lx.pos;
	for (;;) {
		if (lex_next(&lx, &t) == LK_EOF || t.kind == LK_DIRECTIVE)
			return -1;
		if (t.kind != LK_PUNCT)
			continue;
		if (strchr("([{", s[t.start])) {
			depth++;
		} else if (strchr(")]}", s[t.start])) {
			if (--depth < 0)
				return -1;
		} else if (depth == 0 && s[t.start] == ',') {
			if (out->nr_cfg == 4)
				return -1;
			out->cfg[out->nr_cfg++] = t.end;
		} else if (depth == 0 && triple(&lx, &t, '>')) {
			break;
		}
	}
	out->cfg[out->nr_cfg] = t.start;
	if (out->nr_cfg < 2)
		return -1;
	lex_seek(&lx, t.start + 3);
	if (lex_next(&lx, &t) != LK_PUNCT || !punct(&lx, &t, '('))
		return -1;
	out->paren = t.start;
	return 0;
}

/* Read the launch site s[start, end) of kernel kname. */
static int parse_site(const char *s, size_t start, size_t end, const char *kname, struct site *out)
{
	struct lexer lx;
	int rc;
	lex_open(&lx, s, start, end);
	rc = parse_site_in(&lx, kname, out);
	lex_close(&lx);
	return rc;
}

int astra_rewrite_in_main(const struct astra_tu *tu, const struct astra_kernel *k)
{
	return !k->file || !strcmp(k->file, tu->path);
}

int astra_rewrite_launches(struct astra_edits *e, const struct astra_tu *tu, const struct astra_subst *s)
{
	const struct astra_kernel *k = s->kernel;
	char *lname = astra_rewrite_launcher_name(k->name);
	int in_main = astra_rewrite_in_main(tu, k);
	size_t i, j;
	int done = 0;

	for (i = 0; i < tu->nr_launches; i++) {
		const struct astra_launch *l = &tu->launches[i];
		struct astra_buf b = ASTRA_BUF_INIT;
		struct site st = { 0 };
		int skip = 0;
		size_t c;

		if (l->end > tu->len || l->start >= l->end || l->in_macro || (l->name && strcmp(l->name, k->name)))
			continue;
		if (parse_site(tu->text, l->start, l->end, k->name, &st) < 0)
			continue; /* another kernel, or not spelled in this file */
		if (in_main && l->start < k->end) {
			astra_trace(ASTRA_TRACE_EXTRACT, "%s:%u: a launch of %s before its definition keeps the original",
				    tu->path, l->line, k->name);
			continue;
		}
		for (j = 0; j < tu->nr_kernels; j++) {
			const struct astra_kernel *o = &tu->kernels[j];
			if (astra_rewrite_in_main(tu, o) && l->start >= o->start && l->start < o->end)
				skip = 1;
		}
		if (skip)
			continue; /* a launch from device code keeps the original */

		/*
		 * ns::name<T><<<g, b>>>(args) becomes
		 * (ns::__astra_pending_name((g), (b), 0, 0) ? (void)0 : ns::__astra_launch_name<T>(args))
		 * in two edits, so that a launch inside the arguments is rewritten too.
		 */
		astra_buf_addch(&b, '(');
		astra_buf_add(&b, tu->text + l->start, st.name - l->start);
		astra_buf_addf(&b, "__astra_pending_%s(", k->name);
		for (c = 0; c < st.nr_cfg; c++) {
			size_t a = st.cfg[c], z = st.cfg[c + 1] - (c + 1 < st.nr_cfg ? 1 : 0);
			astra_buf_addf(&b, "%s(", c ? ", " : "");
			astra_buf_add(&b, tu->text + a, z - a);
			astra_buf_addch(&b, ')');
		}
		for (; c < 4; c++)
			astra_buf_adds(&b, ", 0");
		astra_buf_adds(&b, ") ? (void)0 : ");
		astra_buf_add(&b, tu->text + l->start, st.name - l->start);
		astra_buf_adds(&b, lname);
		astra_buf_add(&b, tu->text + st.name_end, st.cfg[0] - 3 - st.name_end);
		/* Keep the newlines between >>> and ( so that lines do not move. */
		for (c = st.cfg[st.nr_cfg] + 3; c < st.paren; c++)
			if (tu->text[c] == '\n')
				astra_buf_addch(&b, '\n');
		astra_buf_addch(&b, '(');
		astra_edits_add(e, l->start, st.paren + 1, astra_buf_detach(&b, NULL), 0);
		astra_edits_add(e, l->end, l->end, xstrdup(")"), 0);
		done++;
	}
	free(lname);
	return done;
}

/* --------------------------------------------------------------- includes */

static void add_include(struct astra_increfs *inc, size_t start, size_t end, const char *src, int angle)
{
	ALLOC_GROW(inc->v, inc->nr + 1, inc->alloc);
	inc->v[inc->nr].start = start;
	inc->v[inc->nr].end = end;
	inc->v[inc->nr].name = xstrndup(src + start + 1, end - start - 2);
	inc->v[inc->nr].angle = angle;
	inc->nr++;
}

/* __has_include("x") / __has_include_next("x") inside a directive's text. */
static void scan_has_include(struct astra_increfs *inc, const char *src, size_t a, size_t z)
{
	const char *p = src + a, *end = src + z;
	while ((p = memmem(p, (size_t)(end - p), "__has_include", 13)) != NULL) {
		const char *q = p + 13;
		if (end - q >= 5 && !memcmp(q, "_next", 5))
			q += 5;
		p = q;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= end || *q != '(')
			continue;
		q++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '"') {
			const char *r = memchr(q + 1, '"', (size_t)(end - q - 1));
			if (r)
				add_include(inc, (size_t)(q - src), (size_t)(r + 1 - src), src, 0);
		}
	}
}

void astra_increfs_scan(struct astra_increfs *inc, const char *src, size_t len)
{
	struct lexer lx;
	struct ltok t;

	memset(inc, 0, sizeof(*inc));
	lex_open(&lx, src, 0, len);
	while (lex_next(&lx, &t) != LK_EOF) {
		size_t p;
		if (t.kind != LK_DIRECTIVE)
			continue;
		scan_has_include(inc, src, t.start, t.end);
		p = t.start + 1;
		while (p < t.end && (src[p] == ' ' || src[p] == '\t'))
			p++;
		if (t.end - p < 7 || memcmp(src + p, "include", 7))
			continue;
		p += 7;
		if (p < t.end && astra_lex_ident_char((unsigned char)src[p]))
			continue; /* include_next (searches after the includer's directory) or another word */
		while (p < t.end && (src[p] == ' ' || src[p] == '\t' || src[p] == '\\' || src[p] == '\r' ||
				     src[p] == '\n'))
			p++;
		if (p < t.end && (src[p] == '"' || src[p] == '<')) {
			char close = src[p] == '"' ? '"' : '>';
			const char *r = memchr(src + p + 1, close, t.end - p - 1);
			if (r) {
				add_include(inc, p, (size_t)(r + 1 - src), src, close == '>');
				continue;
			}
		}
		inc->computed++;
	}
	lex_close(&lx);
}

void astra_increfs_release(struct astra_increfs *inc)
{
	size_t i;
	for (i = 0; i < inc->nr; i++)
		free(inc->v[i].name);
	free(inc->v);
	memset(inc, 0, sizeof(*inc));
}
