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

/* A shape-dispatched entry: two variants and the original, five shapes. */
static void sample_dispatch(struct astra_entry *e)
{
	static const char v1[] = "__global__ void silu(__half *o, const __half *x, int t, int d) { /* vec */ }\n";
	static const char v2[] = "#pragma astra launch(grid=t, block=128)\n"
				 "__global__ void silu(__half *o, const __half *x, int t, int d) { /* row */ }\n";
	static const double shapes[5][2] = { { 2048, 14336 }, { 128, 11008 }, { 7, 5120 }, { 1, 4096 }, { 3, 1001 } };
	static const int choice[5] = { 1, 1, 2, 0, 0 };
	size_t i;
	astra_entry_init(e);
	e->key = xstrdup(KEY);
	e->cc = 90;
	e->verdict = ASTRA_VERDICT_FASTER;
	e->kernel = xstrdup("silu");
	astra_entry_add_variant(e, v1, strlen(v1), "rules: vectorize");
	astra_entry_add_variant(e, v2, strlen(v2), "rules: block-per-row");
	astra_entry_add_param(e, "t");
	astra_entry_add_param(e, "d");
	for (i = 0; i < 5; i++) {
		double med[3] = { 100.0 / (double)(i + 1), 50.0 / (double)(i + 1), 60.0 / (double)(i + 1) };
		double spr[3] = { 0.01, 0.02, 0.03 };
		char label[64];
		snprintf(label, sizeof(label), "t=%g d=%g", shapes[i][0], shapes[i][1]);
		astra_entry_add_point(e, label, shapes[i], choice[i], med, spr);
	}
	e->speedup = 1.4;
	e->created = 1764000000;
}

/* Decoding every truncation and every bit flip of b: how many were accepted. */
static int accepted_damage(struct astra_buf *b)
{
	struct astra_entry d;
	const char *why;
	size_t i;
	int bit, n = 0;
	for (i = 0; i < b->len; i++)
		if (astra_entry_decode(b->buf, i, KEY, 90, &d, NULL, &why) == ASTRA_DECODE_OK) {
			n++;
			astra_entry_release(&d);
		}
	for (i = 0; i < b->len; i++)
		for (bit = 0; bit < 8; bit++) {
			b->buf[i] ^= (char)(1 << bit);
			if (astra_entry_decode(b->buf, b->len, KEY, 90, &d, NULL, &why) == ASTRA_DECODE_OK) {
				n++;
				fprintf(stderr, "accepted a flip of bit %d at offset %zu\n", bit, i);
				astra_entry_release(&d);
			}
			b->buf[i] ^= (char)(1 << bit);
		}
	return n;
}

/*
 * Entries written before format 2 (by commit a4f374b: the sample above, a
 * variant stored by put-variant, a negative verdict) still read, and the
 * writer still writes them byte for byte as it did.
 */
static void test_old_entries(void)
{
	static const struct {
		const char *file, *key;
		enum astra_verdict verdict;
	} old[] = {
		{ "rmsnorm-v1.entry", KEY, ASTRA_VERDICT_FASTER },
		{ "scale-v1.entry", KEY, ASTRA_VERDICT_FASTER },
		{ "silu-v1-no-faster.entry", "fedcba9876543210fedcba9876543210", ASTRA_VERDICT_NO_FASTER },
	};
	const char *src = getenv("srcdir");
	size_t i;

	CHECK(src != NULL); /* the test runner always says where the sources are */
	for (i = 0; src && i < ARRAY_SIZE(old); i++) {
		struct astra_buf b = ASTRA_BUF_INIT, again = ASTRA_BUF_INIT;
		struct astra_entry d;
		const char *why = "";
		char *path = xasprintf("%s/testsuite/cases/cache/0023-entry-formats/%s", src, old[i].file);
		CHECK_INT(astra_buf_read_file(&b, path, 0), 0);
		CHECK(astra_starts_with(b.buf ? b.buf : "", "astra-cc entry 1 "));
		CHECK_INT(astra_entry_decode(b.buf, b.len, old[i].key, 90, &d, NULL, &why), ASTRA_DECODE_OK);
		CHECK_INT(d.verdict, old[i].verdict);
		CHECK_INT(d.nr_variants, 0);
		CHECK_INT(astra_entry_format(&d), 1);
		CHECK_INT(astra_entry_encode(&d, &again, &why), 0);
		CHECK(again.len == b.len && !memcmp(again.buf, b.buf, b.len));
		astra_entry_release(&d);
		astra_buf_release(&b);
		astra_buf_release(&again);
		free(path);
	}
}

static void test_dispatch(void)
{
	struct astra_entry e, d;
	struct astra_buf b = ASTRA_BUF_INIT, again = ASTRA_BUF_INIT;
	const char *why = NULL;

	sample_dispatch(&e);
	CHECK_INT(astra_entry_format(&e), 2);
	CHECK_INT(astra_entry_encode(&e, &b, &why), 0);
	CHECK(astra_starts_with(b.buf, "astra-cc entry 2 xxh3-64:"));
	CHECK(strstr(b.buf, "\"format\":\t2,") != NULL);
	CHECK(strstr(b.buf, "\"variant\":") == NULL);
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_OK);
	CHECK(d.variant == NULL);
	CHECK_INT(d.nr_variants, 2);
	CHECK(d.variants[0].len == e.variants[0].len && !memcmp(d.variants[0].text, e.variants[0].text, d.variants[0].len));
	CHECK(d.variants[1].len == e.variants[1].len && !memcmp(d.variants[1].text, e.variants[1].text, d.variants[1].len));
	CHECK_STR(d.variants[1].origin, "rules: block-per-row");
	CHECK_INT(d.nr_params, 2);
	CHECK_STR(d.params[1], "d");
	CHECK_INT(d.nr_points, 5);
	CHECK_STR(d.points[4].shape, "t=3 d=1001");
	CHECK(d.points[4].values[0] == 3 && d.points[4].values[1] == 1001);
	CHECK_INT(d.points[2].choice, 2);
	CHECK(d.points[1].median_us[2] == 30.0);
	CHECK(d.points[1].spread[1] == 0.02);
	CHECK_INT(astra_entry_encode(&d, &again, &why), 0);
	CHECK(again.len == b.len && !memcmp(again.buf, b.buf, b.len));
	astra_entry_release(&d);

	/* Every truncation and every single-bit flip of a format 2 entry is rejected too. */
	CHECK_INT(accepted_damage(&b), 0);

	/* What the encoder refuses: a set that the launcher could not use. */
	astra_buf_reset(&again);
	e.points[0].choice = 3;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);
	CHECK(strstr(why, "not a version") != NULL);
	e.points[0].choice = 0;
	e.points[1].choice = 0;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1); /* variant 1 chosen nowhere */
	CHECK(strstr(why, "chosen at no shape") != NULL);
	e.points[0].choice = e.points[1].choice = 1;
	e.points[3].values[0] = 3;
	e.points[3].values[1] = 1001;
	e.points[3].choice = 2;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1); /* same values as shape 4, another choice */
	CHECK(strstr(why, "cannot tell apart") != NULL);
	e.points[3].choice = 0;
	CHECK_INT(astra_entry_encode(&e, &again, &why), 0);
	free(e.params[0]);
	e.params[0] = xstrdup("t); system(\"x\"");
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);
	free(e.params[0]);
	e.params[0] = xstrdup("t");
	astra_entry_set_variant(&e, "x", 1);
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);
	astra_entry_set_variant(&e, NULL, 0);
	e.verdict = ASTRA_VERDICT_NO_FASTER;
	CHECK_INT(astra_entry_encode(&e, &again, &why), -1);

	astra_entry_release(&e);
	astra_buf_release(&b);
	astra_buf_release(&again);
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

	/* A format version this astra-cc does not know: unknown, not corrupt. */
	b.buf[strlen(ASTRA_ENTRY_MAGIC)] = '3';
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_UNKNOWN);
	b.buf[strlen(ASTRA_ENTRY_MAGIC)] = '0';
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_UNKNOWN);
	/* A format 1 manifest under a format 2 header is neither. */
	b.buf[strlen(ASTRA_ENTRY_MAGIC)] = '2';
	CHECK_INT(astra_entry_decode(b.buf, b.len, KEY, 90, &d, NULL, &why), ASTRA_DECODE_CORRUPT);
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
	test_dispatch();
	test_old_entries();
	return unit_done();
}
