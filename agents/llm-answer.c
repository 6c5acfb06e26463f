/*
 * llm-answer.c - code extraction from answers, and the candidate check
 * through astra_extract_candidate (see llm-answer.h).
 *
 * Everything here reads untrusted text: every index is bounds-checked and
 * the work is linear in the size of the answer.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "lib/util.h"
#include "front/extract.h"
#include "front/lex.h"

/* ------------------------------------------------------------ fenced blocks */

/* A fence line: up to 3 spaces, then 3+ ` or ~.  Returns the fence length. */
static size_t fence_at(const char *line, size_t len, char *ch)
{
	size_t i = 0, n = 0;
	while (i < len && i < 3 && line[i] == ' ')
		i++;
	if (i >= len || (line[i] != '`' && line[i] != '~'))
		return 0;
	*ch = line[i];
	while (i + n < len && line[i + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

/*
 * Does code define a __global__ function (named name, unless name is NULL)?
 * A look at front/lex.c's tokens (the word __global__, then the name before
 * a '(' ahead of the next '{' or ';'), enough to choose among blocks: the
 * real check comes after.  Comments and strings do not count.
 */
static int defines_kernel(const char *code, size_t len, const char *name)
{
	struct astra_lexed lx;
	size_t i, j;
	int found = 0;

	astra_lex(code, len, ASTRA_LEX_LENIENT, &lx);
	for (i = 0; i < lx.nr && !found; i++) {
		if (lx.toks[i].kind != ASTRA_LEX_IDENT || !astra_lex_is(code, &lx.toks[i], "__global__"))
			continue;
		if (!name) {
			found = 1;
			break;
		}
		/* The declarator ends at the body or a ';'; the name precedes a '('. */
		for (j = i + 1; j < lx.nr && !astra_lex_is(code, &lx.toks[j], "{") && !astra_lex_is(code, &lx.toks[j], ";");
		     j++)
			if (lx.toks[j].kind == ASTRA_LEX_IDENT && astra_lex_is(code, &lx.toks[j], name) && j + 1 < lx.nr &&
			    astra_lex_is(code, &lx.toks[j + 1], "("))
				found = 1;
	}
	astra_lexed_release(&lx);
	return found;
}

int astra_llm_answer_code(const char *answer, const char *kernel_name, struct astra_buf *code,
			  struct astra_buf *why)
{
	const char *p = answer, *best = NULL, *any = NULL;
	size_t best_len = 0, any_len = 0;
	int blocks = 0, unclosed = 0;

	/*
	 * Reasoning models served through Ollama or llama.cpp may put their
	 * thinking, drafts included, in the content: only what follows counts.
	 */
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	if (!strncmp(p, "<think>", 7)) {
		const char *end = strstr(p, "</think>");
		p = end ? end + 8 : p + strlen(p);
	}

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char ch;
		size_t n = fence_at(p, len, &ch);
		if (n) {
			/* Inside a block until a closing fence of the same kind and length. */
			const char *body = eol ? eol + 1 : p + len, *q = body, *close = NULL;
			while (*q) {
				const char *e2 = strchr(q, '\n');
				size_t l2 = e2 ? (size_t)(e2 - q) : strlen(q), k = 0;
				char c2;
				size_t m = fence_at(q, l2, &c2);
				if (m >= n && c2 == ch) {
					for (k = 0; k < l2 && (q[k] == ' ' || q[k] == ch); k++)
						;
					while (k < l2 && (q[k] == ' ' || q[k] == '\t' || q[k] == '\r'))
						k++;
				}
				if (m >= n && c2 == ch && k == l2) {
					close = q;
					break;
				}
				q = e2 ? e2 + 1 : q + l2;
			}
			if (!close) {
				unclosed = 1;
				break;
			}
			blocks++;
			if (defines_kernel(body, (size_t)(close - body), kernel_name)) {
				best = body;
				best_len = (size_t)(close - body);
			} else if (defines_kernel(body, (size_t)(close - body), NULL)) {
				any = body;
				any_len = (size_t)(close - body);
			}
			eol = strchr(close, '\n');
			p = eol ? eol + 1 : close + strlen(close);
			continue;
		}
		p = eol ? eol + 1 : p + len;
	}
	if (!best && any) {
		best = any;
		best_len = any_len;
	}
	if (!best) {
		if (unclosed && !blocks)
			astra_buf_adds(why, "the code block is never closed (was the answer cut off?)");
		else if (!blocks)
			astra_buf_adds(why, "the answer has no fenced code block (```cuda ... ```)");
		else
			astra_buf_addf(why, "no code block defines the __global__ function `%s`", kernel_name);
		return -1;
	}
	/* Drop carriage returns so the text is plain Unix lines. */
	{
		size_t i;
		for (i = 0; i < best_len; i++)
			if (best[i] != '\r')
				astra_buf_addch(code, best[i]);
	}
	astra_buf_rtrim(code);
	astra_buf_addch(code, '\n');
	return 0;
}

/* ------------------------------------------------------------ the check */

int astra_llm_check_candidate(const struct astra_kernel *k, const char *code,
			      struct astra_variant *v, struct astra_buf *why)
{
	memset(v, 0, sizeof(*v));
	v->text = xstrdup(code);
	if (astra_extract_candidate(k, v, NULL, why) == 0)
		return 0;
	astra_variant_release(v);
	memset(v, 0, sizeof(*v));
	astra_buf_rtrim(why);
	if (!why->len)
		astra_buf_adds(why, "the code is not an acceptable variant");
	return -1;
}
