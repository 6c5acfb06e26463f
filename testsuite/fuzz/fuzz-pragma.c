/*
 * fuzz-pragma.c - fuzz target for the `#pragma astra` parser (front/pragma.c).
 *
 * The input is the text after `#pragma astra`, continuations and all.
 * Besides not crashing, the parser must keep one promise that is easy to
 * break: a pragma that parses cleanly has a canonical form that parses
 * cleanly again to the same canonical form (the key relies on it).
 * Built with libFuzzer (--enable-fuzzers, CC=clang) or with driver.c.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/pragma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const names[] = { "out", "x", "n", "eps", NULL };
	static const int is_ptr[] = { 1, 2, 0, 0, 1 };
	static char *const tmpl[] = { "T" };
	struct astra_pragma p, q;
	struct astra_diags d, e;
	char *text, *canon, *canon2, *msgs;
	int ok;

	/* The parser takes a C string; an embedded NUL just ends it. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	memset(&d, 0, sizeof(d));
	astra_pragma_init(&p);
	ok = astra_pragma_parse(&p, text, "f.cu", 3, 15, &d) == 0;
	/* A second line adds to the first, as consecutive lines do. */
	if (astra_pragma_parse(&p, text, "f.cu", 4, 15, &d) < 0)
		ok = 0;
	astra_pragma_check(&p, "f.cu", names, is_ptr, 5, tmpl, NULL, size & 1, &d);
	msgs = astra_diags_format(&d);
	canon = astra_pragma_canonical(&p);
	if (ok) {
		memset(&e, 0, sizeof(e));
		astra_pragma_init(&q);
		if (astra_pragma_parse(&q, canon, "canon", 1, 1, &e) < 0) {
			char *m = astra_diags_format(&e);
			fprintf(stderr, "canonical text does not parse:\n%s\n%s", canon, m);
			abort();
		}
		canon2 = astra_pragma_canonical(&q);
		if (strcmp(canon, canon2)) {
			fprintf(stderr, "canonical text is not stable:\n%s\n%s\n", canon, canon2);
			abort();
		}
		free(canon2);
		astra_pragma_release(&q);
		astra_diags_release(&e);
	}
	free(canon);
	free(msgs);
	astra_pragma_release(&p);
	astra_diags_release(&d);
	free(text);
	return 0;
}
