/*
 * canon.c - the same kernel in the rules' wording (see canon.h).
 *
 * Passes over the working copy, each re-reading the text the previous one
 * left: macros and constants, __device__ functions, the index, the bounds
 * check, while loops, strides, maxima.  Every pass checks what it needs
 * to prove the rewrite keeps the meaning, and otherwise leaves the code
 * as it is; the rules then decline as they would have.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "front/expand.h"
#include "front/lex.h"
#include "front/types.h"
#include "rules/canon.h"
#include "rules/canon-int.h"
#include "rules/facts.h"

/* ------------------------------------------------------------ utilities */

/* Is token t a member name (after `.`, `->` or `::`)? */
int astra_canon_is_member(const struct astra_syn *syn, size_t t)
{
	return t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->") || astra_syn_is(syn, t - 1, "::"));
}

/* The bytes of the kernel's body `{ ... }` in text, found by the kernel's name; -1 when not found. */
int astra_canon_body_bytes(const char *text, const char *name, size_t *from, size_t *to)
{
	struct astra_lexed lx;
	size_t i, n = strlen(name);
	int r = -1;
	if (astra_lex(text, strlen(text), ASTRA_LEX_LENIENT, &lx) < 0)
		goto out;
	for (i = 0; i + 1 < lx.nr; i++) {
		int depth = 0;
		size_t j;
		if (lx.toks[i].kind != ASTRA_LEX_IDENT || lx.toks[i].len != n || memcmp(text + lx.toks[i].off, name, n) ||
		    !astra_lex_is(text, &lx.toks[i + 1], "("))
			continue;
		for (j = i + 1; j < lx.nr; j++) {
			if (astra_lex_is(text, &lx.toks[j], "("))
				depth++;
			else if (astra_lex_is(text, &lx.toks[j], ")") && --depth == 0)
				break;
		}
		for (; j < lx.nr && !astra_lex_is(text, &lx.toks[j], "{"); j++)
			if (astra_lex_is(text, &lx.toks[j], ";"))
				break;
		if (j >= lx.nr || !astra_lex_is(text, &lx.toks[j], "{"))
			continue;
		*from = lx.toks[j].off;
		for (depth = 0; j < lx.nr; j++) {
			if (astra_lex_is(text, &lx.toks[j], "{"))
				depth++;
			else if (astra_lex_is(text, &lx.toks[j], "}") && --depth == 0)
				break;
		}
		if (j < lx.nr) {
			*to = lx.toks[j].off + 1;
			r = 0;
		}
		break;
	}
out:
	astra_lexed_release(&lx);
	return r;
}

/* text with each identifier names[i] (not a member) replaced by values[i]; malloc'd. */
char *astra_canon_subst_names(const char *text, char **names, char **values, size_t n)
{
	struct astra_lexed lx;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, k, prev = 0, len = strlen(text);
	astra_lex(text, len, ASTRA_LEX_LENIENT, &lx);
	for (i = 0; i < lx.nr; i++) {
		const struct astra_lex_tok *t = &lx.toks[i];
		if (t->kind != ASTRA_LEX_IDENT)
			continue;
		if (i > 0 && (astra_lex_is(text, &lx.toks[i - 1], ".") || astra_lex_is(text, &lx.toks[i - 1], "->") ||
			      astra_lex_is(text, &lx.toks[i - 1], "::")))
			continue;
		for (k = 0; k < n; k++)
			if (astra_lex_is(text, t, names[k]))
				break;
		if (k == n)
			continue;
		astra_buf_add(&b, text + prev, t->off - prev);
		astra_buf_adds(&b, values[k]);
		prev = t->off + t->len;
	}
	astra_buf_add(&b, text + prev, len - prev);
	astra_lexed_release(&lx);
	return astra_buf_detach(&b, NULL);
}

/* How often the identifier name occurs in text (not as a member). */
int astra_canon_count_name(const char *text, const char *name)
{
	struct astra_lexed lx;
	size_t i;
	int c = 0;
	astra_lex(text, strlen(text), ASTRA_LEX_LENIENT, &lx);
	for (i = 0; i < lx.nr; i++)
		if (lx.toks[i].kind == ASTRA_LEX_IDENT && astra_lex_is(text, &lx.toks[i], name) &&
		    !(i > 0 && (astra_lex_is(text, &lx.toks[i - 1], ".") || astra_lex_is(text, &lx.toks[i - 1], "->"))))
			c++;
	astra_lexed_release(&lx);
	return c;
}

/* A fresh name with prefix pfx that text does not use. */
char *astra_canon_fresh(struct cn *C, const char *pfx)
{
	for (;;) {
		char *n = xasprintf("%s%d", pfx, C->serial++);
		if (!astra_canon_count_name(C->rk->text, n))
			return n;
		free(n);
	}
}

/* The indentation of the line holding byte off of text. */
char *astra_canon_indent_at(const char *text, size_t off)
{
	size_t ls = off, e;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	for (e = ls; text[e] == ' ' || text[e] == '\t'; e++)
		;
	return xstrndup(text + ls, e - ls);
}

/* text (several lines) re-indented: its lines' common indentation becomes ind. */
void astra_canon_add_reindented(struct astra_buf *b, const char *text, const char *ind)
{
	size_t common = (size_t)-1;
	const char *p = text;
	for (;;) {
		size_t n = 0;
		while (p[n] == ' ' || p[n] == '\t')
			n++;
		if (p[n] && p[n] != '\n' && n < common)
			common = n;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (common == (size_t)-1)
		common = 0;
	p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p), skip = 0;
		while (skip < common && skip < n && (p[skip] == ' ' || p[skip] == '\t'))
			skip++;
		if (n > skip) {
			astra_buf_adds(b, ind);
			astra_buf_add(b, p + skip, n - skip);
		}
		if (!e)
			break;
		astra_buf_addch(b, '\n');
		p = e + 1;
	}
}

int astra_canon_apply_edits(struct cn *C, struct astra_syn_edits *e, unsigned did)
{
	int n = (int)e->nr;
	if (!n)
		return 0;
	if (astra_rk_edit(C->rk, e) < 0) {
		astra_syn_edits_release(e);
		return -1;
	}
	astra_syn_edits_release(e);
	C->count += n;
	C->done |= did;
	return n;
}


/* ------------------------------------------------------------ the passes */

int astra_canon(struct astra_rk *rk, struct astra_buf *notes)
{
	static const struct {
		unsigned bit;
		const char *what;
	} kinds[] = {
		{ DID_MACRO, "macros expanded" }, { DID_CONST, "constants replaced by their values" },
		{ DID_INLINE, "__device__ functions inlined" }, { DID_INDEX, "an index set in several statements made one" },
		{ DID_GUARD, "the bounds check made an early return" }, { DID_WHILE, "while loops made for loops" },
		{ DID_STRIDE, "the block size's value as a stride or a block's offset made blockDim.x" },
		{ DID_MINMAX, "maxima and minima written with if or ?: made fmaxf/fminf/max/min" },
		{ DID_ELSE, "an early return in an if made an else" },
		{ DID_STAGE, "a shared-memory copy of an input read from the input" },
		{ DID_BLOCK2D, "a 2-D block of a 1-D grid made a 1-D block" },
	};
	struct cn C;
	size_t i;
	memset(&C, 0, sizeof(C));
	C.rk = rk;
	C.notes = notes;
	if (astra_canon_pass_macros(&C) < 0 || astra_canon_pass_consts(&C) < 0 || astra_canon_pass_inline(&C) < 0 ||
	    astra_canon_pass_macros(&C) < 0 || astra_canon_pass_consts(&C) < 0 || astra_canon_pass_stage(&C) < 0 ||
	    astra_canon_pass_block2d(&C) < 0 || astra_canon_pass_index(&C) < 0 || astra_canon_pass_guard(&C) < 0 ||
	    astra_canon_pass_else(&C) < 0 || astra_canon_pass_while(&C) < 0 || astra_canon_pass_stride(&C) < 0 ||
	    astra_canon_pass_minmax(&C) < 0)
		return -1;
	if (notes)
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (C.done & kinds[i].bit)
				astra_buf_addf(notes, "%s\n", kinds[i].what);
	return C.count;
}

int astra_canon_minmax(struct astra_rk *rk)
{
	struct cn C;
	memset(&C, 0, sizeof(C));
	C.rk = rk;
	return astra_canon_pass_minmax(&C) < 0 ? -1 : C.count;
}
