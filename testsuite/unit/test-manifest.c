/*
 * Unit tests for cache/manifest.c: the entry format round-trips, and every
 * truncation and every single-bit flip of an entry is rejected.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "cache/manifest.h"
#include "testsuite/unit/unit.h"

#define KEY "0123456789abcdef0123456789abcdef"

static void sample(struct astra_entry *e)
{
	const char *variant =
		"#pragma astra launch(grid=(rows+3)/4, block=128)\n"
		"__global__ void rmsnorm(float *out, const float *x, int rows, int cols)\n"
		"{\n\tint r = blockIdx.x * 4 + threadIdx.x / 32;\n\t/* ... */\n}\n";
	astra_entry_init(e);
	e->key = xstrdup(KEY);
	e->cc = 90;
	e->verdict = ASTRA_VERDICT_FASTER;
	e->kernel = xstrdup("rmsnorm");
	e->file = xstrdup("src/norm.cu");
	e->line = 42;
	astra_entry_add_input(e, "tokens", "xxh3:1111");
	astra_entry_add_input(e, "pragma", "shapes(rows=7 cols=5120)");
	astra_entry_set_variant(e, variant, strlen(variant));
	e->origin = xstrdup("rules: warp-per-row");
	e->speedup = 1.75;
	astra_entry_add_timing(e, "rows=4096 cols=4096", 20.5, 0.01, 11.75, 0.02);
	astra_entry_add_shape(e, "rows=4096 cols=4096");
	astra_entry_add_shape(e, "rows=7 cols=5120");
	astra_entry_add_seed(e, 7);
	astra_entry_add_seed(e, 999999999999999LL);
	e->device = xstrdup("NVIDIA H100 80GB HBM3");
	e->driver = xstrdup("580.65.06");
	e->nvcc_version = xstrdup("13.0.48");
	e->optimizer = xstrdup("llm");
	e->model = xstrdup("some-model");
	e->seconds = 93.25;
	e->created = 1764000000;
	e->extra = astra_json_new_object();
	astra_json_set_num(e->extra, "bw_frac", 0.81);
}

int main(void)
{
	struct astra_entry e, d;
	struct astra_buf b = ASTRA_BUF_INIT, again = ASTRA_BUF_INIT;
	struct astra_json *m = NULL;
	const char *why = NULL;
	size_t i;
	int bit, accepted = 0;

	CHECK_STR(astra_verdict_name(ASTRA_VERDICT_NO_FASTER), "no-faster-variant");
	CHECK_INT(astra_verdict_parse("failed"), ASTRA_VERDICT_FAILED);
	CHECK_INT(astra_verdict_parse("FAILED"), ASTRA_VERDICT_NONE);
	CHECK(astra_key_ok(KEY));
	CHECK(!astra_key_ok("0123456789ABCDEF0123456789abcdef"));
	CHECK(!astra_key_ok("0123"));

	/* Round trip. */
	sample(&e);
	CHECK_INT(astra_entry_encode(&e, &b, &why), 0);
	CHECK(astra_starts_with(b.buf, "astra-cc entry 1 xxh3-64:"));
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, &m, &why), ASTRA_DECODE_OK);
	CHECK_STR(d.key, KEY);
	CHECK_INT(d.cc, 90);
	CHECK_INT(d.verdict, ASTRA_VERDICT_FASTER);
	CHECK_STR(d.kernel, "rmsnorm");
	CHECK_STR(d.file, "src/norm.cu");
	CHECK_INT(d.line, 42);
	CHECK_INT(d.nr_inputs, 2);
	CHECK_STR(d.inputs[1].label, "pragma");
	CHECK_INT(d.variant_len, e.variant_len);
	CHECK(d.variant && !memcmp(d.variant, e.variant, e.variant_len));
	CHECK_STR(d.origin, "rules: warp-per-row");
	CHECK(d.speedup == 1.75);
	CHECK_INT(d.nr_timings, 1);
	CHECK(d.timings[0].variant_us == 11.75);
	CHECK_INT(d.nr_shapes, 2);
	CHECK_INT(d.nr_seeds, 2);
	CHECK_INT(d.seeds[1], 999999999999999LL);
	CHECK_STR(d.device, "NVIDIA H100 80GB HBM3");
	CHECK_STR(d.model, "some-model");
	CHECK_INT(d.created, 1764000000);
	CHECK(astra_json_get_num(d.extra, "bw_frac", 0) == 0.81);
	CHECK_STR(astra_json_get_str(m, "arch"), "sm_90");
	/* Re-encoding the decoded entry gives the same bytes. */
	CHECK_INT(astra_entry_encode(&d, &again, &why), 0);
	CHECK(again.len == b.len && !memcmp(again.buf, b.buf, b.len));
	astra_json_free(m);
	astra_entry_release(&d);

	/* Asked for another key or architecture. */
	CHECK_INT(astra_entry_decode(b.buf, b.len, "ffffffffffffffffffffffffffffffff", 90, &d, NULL, &why),
		  ASTRA_DECODE_CORRUPT);
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 80, &d, NULL, &why), ASTRA_DECODE_CORRUPT);
	CHECK_INT(astra_entry_decode(b.buf, b.len, NULL, 0, &d, NULL, &why), ASTRA_DECODE_OK);
	astra_entry_release(&d);

	/* Every truncation is rejected, and so is an extra byte. */
	for (i = 0; i < b.len; i++)
		if (astra_entry_decode(b.buf, i, KEY, 90, &d, NULL, &why) == ASTRA_DECODE_OK) {
			accepted++;
			astra_entry_release(&d);
		}
	CHECK_INT(accepted, 0);
	astra_buf_addch(&b, '\n');
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_CORRUPT);
	astra_buf_setlen(&b, b.len - 1);

	/* Every single-bit flip anywhere (header, manifest, variant) is rejected. */
	for (i = 0; i < b.len; i++)
		for (bit = 0; bit < 8; bit++) {
			enum astra_decode r;
			b.buf[i] ^= (char)(1 << bit);
			r = astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why);
			if (r == ASTRA_DECODE_OK) {
				accepted++;
				fprintf(stderr, "accepted a flip of bit %d at offset %zu\n", bit, i);
				astra_entry_release(&d);
			}
			b.buf[i] ^= (char)(1 << bit);
		}
	CHECK_INT(accepted, 0);

	/* Another format version: unknown, not corrupt. */
	b.buf[strlen(ASTRA_ENTRY_MAGIC)] = '2';
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_UNKNOWN);
	b.buf[strlen(ASTRA_ENTRY_MAGIC)] = '1';

	/* A manifest whose JSON is valid and checksummed but says nonsense. */
	{
		struct astra_buf body = ASTRA_BUF_INIT, f = ASTRA_BUF_INIT;
		char sum[25];
		const char *bad = "{\"format\": 1, \"key\": \"" KEY "\", \"cc\": 90, \"verdict\": \"faster\","
				  " \"kernel\": {\"name\": \"k\"}}\n";
		astra_buf_adds(&body, bad);
		astra_checksum(body.buf, body.len, sum);
		astra_buf_addf(&f, "astra-cc entry 1 %s %zu 0\n%s", sum, body.len, body.buf);
		/* `faster` without a variant. */
		CHECK_INT(astra_entry_decode(f.buf, f.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_CORRUPT);
		CHECK(strstr(why, "verdict") != NULL);
		astra_buf_release(&body);
		astra_buf_release(&f);
	}

	/* Things the encoder refuses. */
	astra_buf_reset(&again);
	free(e.kernel);
	e.kernel = NULL;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);
	e.kernel = xstrdup("rmsnorm");
	e.verdict = ASTRA_VERDICT_NO_FASTER;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);
	astra_entry_set_variant(&e, NULL, 0);
	CHECK_INT(astra_entry_encode(&e, &again, &why), 0);
	CHECK_INT(astra_entry_decode(again.buf, again.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_OK);
	CHECK_INT(d.verdict, ASTRA_VERDICT_NO_FASTER);
	CHECK(d.variant == NULL);
	astra_entry_release(&d);
	free(e.key);
	e.key = xstrdup("not-a-key");
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);

	astra_entry_release(&e);
	astra_buf_release(&b);
	astra_buf_release(&again);
	return unit_done();
}
