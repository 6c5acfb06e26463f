/*
 * Unit tests for the report's pure parts: HTML escaping of untrusted text
 * (lib/buf.c), the side-by-side diff (astra-cc/report-diff.c), the
 * charts (astra-cc/report-svg.c), the evidence record and its trip through
 * a cache entry (agents/evidence.c, cache/manifest.c), and the progress
 * line's text (agents/progress.c).
 */
#include "autoconfig.h"

#include <stdlib.h>

#include "agents/evidence.h"
#include "agents/progress.h"
#include "astra-cc/report-diff.h"
#include "astra-cc/report-svg.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cache/manifest.h"
#include "testsuite/helpers/evidence-fixture.h"
#include "testsuite/unit/unit.h"

static void test_escape(void)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_add_html_escaped(&b, "<script>alert('x')</script> & \"q\"");
	CHECK_STR(b.buf, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
	astra_buf_reset(&b);
	/* Valid UTF-8 (2, 3 and 4 bytes), tab and newline pass. */
	astra_buf_add_html_escaped(&b, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\t\n");
	CHECK_STR(b.buf, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\t\n");
	astra_buf_reset(&b);
	/* A stray byte, an overlong '<', a surrogate, a truncated sequence, controls, a C1 control, U+FFFE. */
	astra_buf_add_html_escaped(&b, "a\xff" "b\xc0\xbc" "c\xed\xa0\x80" "d\xe2\x82" "e\x01\x1b\x7f" "f\xc2\x85"
				       "g\xef\xbf\xbe");
	CHECK_STR(b.buf, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			 "d\xef\xbf\xbd\xef\xbf\xbd" "e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "f\xef\xbf\xbd"
			 "g\xef\xbf\xbd");
	astra_buf_reset(&b);
	astra_buf_add_utf8(&b, "ok \xc3\xa9 <\xff\xc0\xbc>\x01");
	CHECK_STR(b.buf, "ok \xc3\xa9 <\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd>\x01");
	astra_buf_reset(&b);
	astra_buf_add_html_escaped(&b, "a\xff" "b\xc0\xbc" "c\xed\xa0\x80" "d\xe2\x82" "e\x01\x1b\x7f" "f\xc2\x85"
				       "g\xef\xbf\xbe");
	/* Nothing that could open a tag or an attribute survives. */
	CHECK(!strchr(b.buf, '<') && !strchr(b.buf, '>') && !strchr(b.buf, '"'));
	astra_buf_release(&b);
}

static void test_diff(void)
{
	struct astra_diff d;
	size_t i, same = 0;

	astra_diff_lines("a\nb\nc\n", "a\nb\nc\n", &d);
	CHECK_INT(d.nr_rows, 3);
	for (i = 0; i < d.nr_rows; i++)
		same += d.rows[i].kind == ASTRA_DIFF_SAME && d.rows[i].left == i + 1 && d.rows[i].right == i + 1;
	CHECK_INT(same, 3);
	CHECK_INT(d.removed + d.added, 0);
	astra_diff_release(&d);

	/* A line changed, one added after it, one removed further down. */
	astra_diff_lines("int a;\nx = 1;\ny = 2;\nz = 3;\nend\n", "int a;\nx = 10;\nw = 0;\ny = 2;\nend\n", &d);
	CHECK_INT(d.nr_rows, 6);
	CHECK_INT(d.rows[0].kind, ASTRA_DIFF_SAME);
	CHECK_INT(d.rows[1].kind, ASTRA_DIFF_CHANGED);
	CHECK_INT(d.rows[1].left, 2);
	CHECK_INT(d.rows[1].right, 2);
	CHECK_INT(d.rows[2].kind, ASTRA_DIFF_ADDED);
	CHECK_INT(d.rows[2].left, 0);
	CHECK_INT(d.rows[2].right, 3);
	CHECK_INT(d.rows[3].kind, ASTRA_DIFF_SAME);
	CHECK_INT(d.rows[3].left, 3);
	CHECK_INT(d.rows[3].right, 4);
	CHECK_INT(d.rows[4].kind, ASTRA_DIFF_REMOVED);
	CHECK_INT(d.rows[4].left, 4);
	CHECK_INT(d.rows[5].kind, ASTRA_DIFF_SAME);
	CHECK_INT(d.removed, 2);
	CHECK_INT(d.added, 2);
	CHECK_STR(d.a[d.rows[4].left - 1], "z = 3;");
	CHECK_STR(d.b[d.rows[2].right - 1], "w = 0;");
	astra_diff_release(&d);

	/* No original: everything is added; CRLF lines read as lines. */
	astra_diff_lines(NULL, "x\r\ny\r\n", &d);
	CHECK_INT(d.nr_rows, 2);
	CHECK_INT(d.rows[0].kind, ASTRA_DIFF_ADDED);
	CHECK_STR(d.b[1], "y");
	astra_diff_release(&d);
}

static struct astra_json *shape(const char *label, double bytes, double b_us, double v_us)
{
	struct astra_json *s = astra_json_new_object(), *t;
	astra_json_set_str(s, "shape", label);
	astra_json_set_num(s, "bytes", bytes);
	t = astra_json_set_object(s, "baseline");
	astra_json_set_num(t, "median_us", b_us);
	astra_json_set_num(t, "q25_us", b_us * 0.98);
	astra_json_set_num(t, "q75_us", b_us * 1.02);
	astra_json_set_num(t, "gbps", bytes / b_us / 1e3);
	if (v_us > 0) {
		t = astra_json_set_object(s, "variant");
		astra_json_set_num(t, "median_us", v_us);
		astra_json_set_num(t, "q25_us", v_us * 0.98);
		astra_json_set_num(t, "q75_us", v_us * 1.02);
		astra_json_set_num(t, "gbps", bytes / v_us / 1e3);
	} else {
		astra_json_set_null(s, "variant");
	}
	return s;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void test_svg(void)
{
	struct astra_json *shapes = astra_json_new_array(), *ks = astra_json_new_array(), *k;
	struct astra_buf b = ASTRA_BUF_INIT;

	CHECK_INT(astra_report_svg_times(&b, shapes), 0);
	CHECK_INT(astra_report_svg_roofline(&b, shapes, 3000), 0);
	CHECK_INT(b.len, 0);
	astra_json_push(shapes, shape("rows=4096 <script>x</script>", 1e8, 126.1, 50.0));
	astra_json_push(shapes, shape("rows=1 cols=1", 24, 3.9, 3.8));
	astra_json_push(shapes, shape("no variant", 1e6, 10, 0));
	CHECK_INT(astra_report_svg_times(&b, shapes), 1);
	CHECK(astra_starts_with(b.buf, "<svg "));
	CHECK(count(b.buf, "<svg") == 1 && count(b.buf, "</svg>") == 1);
	/* One circle per original timing, one square per variant timing, plus the legend's. */
	CHECK_INT(count(b.buf, "<circle class=\"mark\""), 3);
	CHECK_INT(count(b.buf, "<rect class=\"mark\""), 2);
	CHECK(!strstr(b.buf, "<script") && strstr(b.buf, "&lt;script&gt;"));
	CHECK(!strstr(b.buf, "nan") && !strstr(b.buf, "inf"));
	astra_buf_reset(&b);
	CHECK_INT(astra_report_svg_roofline(&b, shapes, 3000), 1);
	CHECK(strstr(b.buf, "copy ceiling 3000 GB/s") != NULL);
	CHECK(!strstr(b.buf, "<script") && !strstr(b.buf, "nan") && !strstr(b.buf, "inf"));
	astra_buf_reset(&b);
	/* Without a measured ceiling there is no ceiling line. */
	CHECK_INT(astra_report_svg_roofline(&b, shapes, 0), 1);
	CHECK(!strstr(b.buf, "class=\"ceiling\""));
	astra_buf_reset(&b);

	CHECK_INT(astra_report_svg_speedups(&b, ks), 0);
	k = astra_json_new_object();
	astra_json_set_str(k, "kernel", "a\"b");
	astra_json_set_num(k, "speedup_largest", 2.5);
	astra_json_push(ks, k);
	k = astra_json_new_object();
	astra_json_set_str(k, "kernel", "slow");
	astra_json_set_num(k, "speedup_largest", 0.9);
	astra_json_push(ks, k);
	k = astra_json_new_object();
	astra_json_set_str(k, "kernel", "none");
	astra_json_set_null(k, "speedup_largest");
	astra_json_push(ks, k);
	CHECK_INT(astra_report_svg_speedups(&b, ks), 1);
	CHECK_INT(count(b.buf, "class=\"bar\""), 2);
	CHECK(strstr(b.buf, "a&quot;b") != NULL && strstr(b.buf, "2.50x") != NULL);
	astra_buf_release(&b);
	astra_json_free(shapes);
	astra_json_free(ks);
}

/* The evidence record survives the entry's file format, and the seed is in the manifest's list. */
static void test_evidence_roundtrip(void)
{
	struct astra_entry e, back;
	struct fixture f;
	struct astra_buf file = ASTRA_BUF_INIT;
	const struct astra_json *ev, *cases, *c0;
	const char *why = NULL;

	astra_entry_init(&e);
	e.key = xstrdup("0123456789abcdef0123456789abcdef");
	e.cc = 90;
	e.kernel = xstrdup("add_rmsnorm");
	memset(&f, 0, sizeof(f));
	f.verdict = ASTRA_VERDICT_FASTER;
	f.speedup = 2.0;
	f.original = "__global__ void add_rmsnorm() { old(); }\n";
	f.variant = "#pragma astra launch(grid=rows, block=512)\n__global__ void add_rmsnorm() { new_(); }\n";
	f.origin = "rules: warp-reduce,block-size=512";
	f.grid = "rows";
	f.block = "512";
	fixture_fill(&e, &f);
	CHECK(astra_entry_encode(&e, &file, &why) == 0);
	CHECK(astra_entry_decode(file.buf, file.len, e.key, 90, &back, NULL, &why) == ASTRA_DECODE_OK);
	ev = astra_json_get(back.extra, "evidence");
	cases = astra_json_get(ev, "cases");
	c0 = astra_json_at(cases, 0);
	CHECK_STR(astra_json_get_str(ev, "run"), "confirmation");
	CHECK_INT(astra_json_len(cases), 4);
	CHECK_STR(astra_json_get_str(c0, "shape"), "rows=4096 cols=4096");
	CHECK(astra_json_get_num(c0, "bytes", 0) == 100663296);
	CHECK(astra_json_get_num(astra_json_get(c0, "variant"), "speedup", 0) == 2.0);
	CHECK_STR(astra_json_get_str(astra_json_get(c0, "variant"), "vs_baseline"), "faster");
	CHECK(strstr(astra_json_get_str(c0, "tolerances"), "rtol=0.02") != NULL);
	CHECK_INT(astra_json_len(astra_json_get(ev, "distributions")), 4);
	CHECK(astra_json_get_bool(astra_json_get(ev, "checks"), "memcheck", 0));
	CHECK(astra_json_get_num(astra_json_get(ev, "device"), "copy_gbps", 0) == 3000);
	CHECK_STR(astra_json_get_str(astra_json_get(back.extra, "original"), "text"), f.original);
	CHECK_STR(astra_json_get_str(astra_json_get(back.extra, "variant_launch"), "block"), "512");
	CHECK_INT(astra_json_get_num(astra_json_get(back.extra, "loop"), "rounds", 0), 2);
	CHECK_INT(back.nr_seeds, 1);
	CHECK(back.nr_seeds == 1 && back.seeds[0] == (long long)(0x5eed0000ULL ^ 0xc0ffeeULL));
	/* The per-shape timings of the manifest itself, as before. */
	CHECK_INT(back.nr_timings, 4);
	astra_entry_release(&back);
	astra_entry_release(&e);
	astra_buf_release(&file);
}

static void step(struct astra_progress_line *l, const char *phase, int round, size_t n, double best, double now)
{
	struct astra_loop_progress lp = { "softmax", round, n, best, phase };
	astra_progress_apply(l, &lp, now);
}

static void test_progress_text(void)
{
	struct astra_progress_line l;
	struct astra_buf b = ASTRA_BUF_INIT;
	memset(&l, 0, sizeof(l));
	l.job = 0;
	l.nr_jobs = 3;
	step(&l, "proposing", 0, 0, 1.0, 100);
	step(&l, "verifying", 0, 16, 1.0, 101);
	astra_progress_describe(&l, 112, &b);
	CHECK_STR(b.buf, "[1/3] softmax: round 1, verifying 16 candidates: 0/16 verified, best 1.00x, 12 s");
	step(&l, "judged", 0, 16, 1.84, 150);
	step(&l, "proposing", 1, 0, 1.84, 150);
	step(&l, "verifying", 1, 8, 1.84, 151);
	astra_buf_reset(&b);
	astra_progress_describe(&l, 162, &b);
	CHECK_STR(b.buf, "[1/3] softmax: round 2, verifying 8 candidates: 16/24 verified, best 1.84x, 1:02");
	step(&l, "judged", 1, 8, 1.84, 170);
	step(&l, "confirming", 2, 1, 1.84, 171);
	step(&l, "faster", 2, 24, 2.09, 202);
	astra_buf_reset(&b);
	astra_progress_describe(&l, 999, &b);
	CHECK(l.done);
	CHECK_STR(b.buf, "[1/3] softmax: done: 2.09x, confirmed; 2 rounds, 24/24 candidates verified, 1:42");

	/* Without a GPU: what happens instead, never "verifying". */
	memset(&l, 0, sizeof(l));
	l.nr_jobs = 1;
	snprintf(l.not_verified, sizeof(l.not_verified), "no GPU");
	step(&l, "proposing", 0, 0, 1.0, 100);
	astra_buf_reset(&b);
	astra_progress_describe(&l, 101, &b);
	CHECK_STR(b.buf, "[1/1] softmax: generating candidates; not verified: no GPU, 1 s");
	step(&l, "verifying", 0, 23, 1.0, 102);
	astra_buf_reset(&b);
	astra_progress_describe(&l, 114, &b);
	CHECK_STR(b.buf, "[1/1] softmax: compiling 23 candidates; not verified: no GPU, 14 s");
	step(&l, "none", 1, 23, 1.0, 130);
	astra_buf_reset(&b);
	astra_progress_describe(&l, 999, &b);
	CHECK_STR(b.buf, "[1/1] softmax: done: 23 candidates generated and compiled; not verified: no GPU, 30 s");
	astra_buf_release(&b);
}

int main(void)
{
	test_escape();
	test_diff();
	test_svg();
	test_evidence_roundtrip();
	test_progress_text();
	return unit_done();
}
