/*
 * fuzz-manifest.c - libFuzzer target for the cache entry reader
 * (cache/manifest.c: astra_entry_decode).
 *
 * Entries are read from disk, where crashes, bad disks and other versions
 * put anything; the reader must reject bad input without crashing, and must
 * never accept an entry that does not re-encode to itself.
 *
 * Each input is tried twice: as a whole entry file (exercising the header,
 * lengths and checksum), and as the body of an entry wrapped in a valid
 * header with the right checksum (so that mutations reach the manifest's
 * JSON checks instead of stopping at the checksum).  In that second form
 * the manifest ends at the first NUL byte and the variant follows it
 * (the .body files in testsuite/fuzz/corpus/manifest are such inputs).
 *
 * Build: with --enable-fuzzers and CC=clang it links with -fsanitize=fuzzer;
 * otherwise with the standalone driver, which `make check` runs for a
 * bounded time (testsuite/cases/fuzz/0002-manifest).
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "cache/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t len)
{
	struct astra_entry e;
	struct astra_json *m = NULL;
	struct astra_buf again = ASTRA_BUF_INIT;
	const char *why = NULL;

	if (astra_entry_decode(text, len, NULL, 0, &e, &m, &why) == ASTRA_DECODE_OK) {
		/*
		 * Whatever is accepted must be a well-formed entry: it
		 * encodes again, and the result decodes to the same verdict.
		 */
		struct astra_entry e2;
		size_t i;
		int same;
		if (astra_entry_encode(&e, &again, &why) < 0 ||
		    astra_entry_decode(again.buf, again.len, e.key, e.cc, &e2, NULL, &why) != ASTRA_DECODE_OK)
			same = 0;
		else
			same = e2.verdict == e.verdict && e2.variant_len == e.variant_len &&
			       (!e.variant_len || !memcmp(e.variant, e2.variant, e.variant_len)) &&
			       e2.nr_variants == e.nr_variants && e2.nr_points == e.nr_points;
		for (i = 0; same && i < e.nr_variants; i++)
			same = e2.variants[i].len == e.variants[i].len &&
			       !memcmp(e2.variants[i].text, e.variants[i].text, e.variants[i].len);
		for (i = 0; same && i < e.nr_points; i++)
			same = e2.points[i].choice == e.points[i].choice;
		if (!same) {
			fprintf(stderr, "accepted an entry that does not round-trip: %s\n", why ? why : "");
			abort();
		}
		astra_entry_release(&e2);
		astra_entry_release(&e);
		astra_json_free(m);
	} else if (!why) {
		fprintf(stderr, "rejected without a reason\n");
		abort();
	}
	astra_buf_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct astra_buf f = ASTRA_BUF_INIT;
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : size;
	size_t vlen = nul ? size - mlen - 1 : 0;
	char sum[25];

	int version;

	check((const char *)data, size);
	/* The body, framed correctly, under each format version read. */
	astra_buf_add(&f, data, mlen);
	if (nul)
		astra_buf_add(&f, nul + 1, vlen);
	astra_checksum(f.buf, f.len, sum);
	for (version = ASTRA_ENTRY_FORMAT_OLDEST; version <= ASTRA_ENTRY_FORMAT; version++) {
		astra_buf_reset(&f);
		astra_buf_addf(&f, "%s%d %s %zu %zu\n", ASTRA_ENTRY_MAGIC, version, sum, mlen, vlen);
		astra_buf_add(&f, data, mlen);
		if (nul)
			astra_buf_add(&f, nul + 1, vlen);
		check(f.buf, f.len);
	}
	astra_buf_release(&f);
	return 0;
}
