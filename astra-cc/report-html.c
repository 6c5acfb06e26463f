/*
 * report-html.c - the report's pages (see report-html.h).
 *
 * Every value that reaches a page goes through one of three doors: esc()
 * for text and attribute values (astra_buf_add_html_escaped: entities,
 * and U+FFFD for bytes that are not valid text), numbers printed with a
 * format of our own, and page names built from the entry's key and
 * architecture after checking that the key is 32 hex digits.  Nothing
 * from the cache is ever written raw.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "astra-cc/report-diff.h"
#include "astra-cc/report-html.h"
#include "astra-cc/report-svg.h"
#include "astra-cc/cmd-report.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cache/fsio.h"
#include "cache/manifest.h"

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1f2328;"
	"background:#fff}\n"
	"header,main,footer{max-width:1280px;margin:0 auto;padding:0 20px}\n"
	"header{padding-top:16px;border-bottom:1px solid #d0d7de}\n"
	"h1{font-size:22px;margin:6px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #eaeef2;"
	"padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}\n"
	"a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}\n"
	".muted{color:#57606a}.nowrap{white-space:nowrap}.small{font-size:12px}\n"
	"table{border-collapse:collapse;margin:6px 0}th,td{padding:4px 8px;border-bottom:1px solid #eaeef2;"
	"text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}\n"
	"td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"table.kernels{width:100%}\n"
	".status{display:inline-block;white-space:nowrap;padding:0 6px;border-radius:10px;font-size:12px;border:1px solid}\n"
	".st-faster{color:#1a7f37;border-color:#1a7f37;background:#dafbe1}\n"
	".st-no-faster-variant{color:#57606a;border-color:#8c959f;background:#f6f8fa}\n"
	".st-failed,.st-corrupt{color:#cf222e;border-color:#cf222e;background:#ffebe9}\n"
	".st-no-entry{color:#9a6700;border-color:#bf8700;background:#fff8c5}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}"
	"dl.facts dt{color:#57606a}dl.facts dd{margin:0}\n"
	"nav.toc a{margin-right:14px}\n"
	"pre,code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
	"pre{background:#f6f8fa;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-word}\n"
	"table.diff{width:100%;table-layout:fixed;border:1px solid #d0d7de}\n"
	"table.diff td{border:0;padding:0 6px;white-space:pre-wrap;word-break:break-all;tab-size:4;"
	"font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
	"table.diff col.ln{width:3.5em}table.diff col.mk{width:1.4em}\n"
	"table.diff td.ln{color:#8c959f;text-align:right;user-select:none}\n"
	"table.diff th{font:600 13px system-ui,sans-serif}\n"
	"td.del{background:#ffebe9}td.ins{background:#dafbe1}td.mk.del,td.mk.ins{font-weight:700}\n"
	"td.none{background:#f6f8fa}\n"
	"svg.chart{max-width:100%;height:auto;display:block;margin:8px 0;font:11px system-ui,sans-serif}\n"
	"svg .plot{fill:#fff;stroke:#d0d7de}svg .grid{stroke:#eaeef2}svg .tick{fill:#57606a}"
	"svg .axis{fill:#1f2328;font-size:12px}\n"
	"svg .orig .mark,svg .orig.mark{fill:#57606a}svg .orig .band,svg .orig.band{fill:#57606a;opacity:.28}\n"
	"svg .var .mark,svg .var.mark{fill:#e8590c}svg .var .band,svg .var.band{fill:#e8590c;opacity:.3}\n"
	"svg .ceiling line{stroke:#cf222e;stroke-width:1.5;stroke-dasharray:6 4}svg .ceiling text{fill:#cf222e}\n"
	"svg .step{stroke:#8c959f;stroke-dasharray:2 3}svg .legend text{fill:#1f2328}\n"
	"svg .bar{fill:#e8590c}svg .slow .bar{fill:#8c959f}svg .one{stroke:#1f2328}svg .name{fill:#1f2328}"
	"svg .value{fill:#1f2328}\n"
	"details{margin:6px 0;border:1px solid #d0d7de;border-radius:6px;padding:4px 10px}"
	"summary{cursor:pointer;font-weight:600}\n"
	".msg{margin:6px 0}.role{font-weight:600;color:#57606a}\n"
	"footer{margin-top:32px;padding-bottom:24px;color:#57606a;font-size:12px}\n";

/* ------------------------------------------------------------ small writers */

static void esc(struct astra_buf *b, const char *s)
{
	astra_buf_add_html_escaped(b, s ? s : "");
}

/* A member, or NULL when absent or JSON null (the report writes null for "unknown"). */
static const struct astra_json *member(const struct astra_json *o, const char *k)
{
	const struct astra_json *m = astra_json_get(o, k);
	return m && !astra_json_is_null(m) ? m : NULL;
}

static const char *str(const struct astra_json *o, const char *k)
{
	return astra_json_get_str(o, k);
}

static double num(const struct astra_json *o, const char *k)
{
	double v = astra_json_get_num(o, k, 0);
	return isfinite(v) ? v : 0;
}

static int known(const struct astra_json *o, const char *k)
{
	return astra_json_is_number(member(o, k)) && isfinite(astra_json_get_num(o, k, 0));
}

static void speed(struct astra_buf *b, const struct astra_json *o, const char *k)
{
	if (known(o, k) && num(o, k) > 0)
		astra_buf_addf(b, "%.2fx", num(o, k));
	else
		astra_buf_adds(b, "&ndash;");
}

static void us(struct astra_buf *b, double v)
{
	if (!(v > 0))
		astra_buf_adds(b, "&ndash;");
	else if (v >= 1000)
		astra_buf_addf(b, "%.3g ms", v / 1000);
	else
		astra_buf_addf(b, "%.3g us", v);
}

static void seconds(struct astra_buf *b, double s)
{
	if (!(s > 0))
		astra_buf_adds(b, "&ndash;");
	else
		astra_buf_addf(b, "%.0f&nbsp;s", s);
}

static void bytes_text(struct astra_buf *b, double v)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;
	if (!(v > 0)) {
		astra_buf_adds(b, "&ndash;");
		return;
	}
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	astra_buf_addf(b, "%.3g %s", v, unit[u]);
}

/* "file:line" */
static void place(struct astra_buf *b, const struct astra_json *k)
{
	esc(b, str(k, "file") ? str(k, "file") : "?");
	if (known(k, "line"))
		astra_buf_addf(b, ":%.0f", num(k, "line"));
}

static void status_badge(struct astra_buf *b, const char *status)
{
	static const char *const known_st[] = { "faster", "no-faster-variant", "failed", "corrupt", "no-entry" };
	const char *cls = "no-entry";
	size_t i;
	for (i = 0; i < ARRAY_SIZE(known_st); i++)
		if (status && !strcmp(status, known_st[i]))
			cls = known_st[i];
	astra_buf_addf(b, "<span class=\"status st-%s\">", cls);
	esc(b, status ? status : "?");
	astra_buf_adds(b, "</span>");
}

/* "2026-11-26T06:38:00Z" -> "2026-11-26 06:38" */
static void short_date(struct astra_buf *b, const char *iso)
{
	char d[17];
	if (!iso || strlen(iso) < 16 || iso[10] != 'T') {
		esc(b, iso ? iso : "");
		return;
	}
	memcpy(d, iso, 16);
	d[10] = ' ';
	d[16] = '\0';
	esc(b, d);
}

/* What produced the variant: the rules in order, or the model. */
static void applied_text(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *steps = member(k, "steps");
	size_t i;
	if (astra_json_len(steps)) {
		astra_buf_adds(b, "rules: ");
		for (i = 0; i < astra_json_len(steps); i++) {
			astra_buf_adds(b, i ? ", " : "");
			esc(b, astra_json_str(astra_json_at(steps, i)));
		}
	} else if (str(k, "origin"))
		esc(b, str(k, "origin"));
	else if (str(k, "model"))
		esc(b, str(k, "model"));
	else if (str(k, "optimizer"))
		esc(b, str(k, "optimizer"));
	else
		astra_buf_adds(b, "&ndash;");
}

/* Is id what cmd-report.c makes: 32 lowercase hex digits, '-', a number? */
static int id_ok(const char *id)
{
	char key[33];
	size_t n;
	if (!id || strlen(id) < 34 || id[32] != '-')
		return 0;
	memcpy(key, id, 32);
	key[32] = '\0';
	n = strspn(id + 33, "0123456789");
	return astra_key_ok(key) && n >= 1 && n <= 4 && !id[33 + n];
}

static void head(struct astra_buf *b, const char *title)
{
	astra_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			  "style-src 'unsafe-inline'; img-src data:\">\n<title>");
	esc(b, title);
	astra_buf_addf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

static void foot(struct astra_buf *b, const struct astra_json *doc)
{
	astra_buf_adds(b, "<footer>Made by ");
	esc(b, str(doc, "generator"));
	astra_buf_adds(b, " on ");
	esc(b, str(doc, "date"));
	astra_buf_adds(b, " from the cache in <code>");
	esc(b, str(doc, "cache_dir"));
	astra_buf_adds(b, "</code>.  The same data: <code>astra-cc --report-json</code> (doc/report.md).</footer>\n"
			  "</body>\n</html>\n");
}

/* ------------------------------------------------------------ the index */

static void index_page(struct astra_buf *b, const struct astra_json *doc)
{
	const struct astra_json *ks = member(doc, "kernels"), *sum = member(doc, "summary");
	const struct astra_json *st = member(sum, "statuses");
	size_t i, n = astra_json_len(ks);

	head(b, "astra-cc report");
	astra_buf_addf(b, "<header><h1>astra-cc report</h1><p class=\"muted\">%zu kernel%s", n, n == 1 ? "" : "s");
	for (i = 0; i < astra_json_len(st); i++) {
		const struct astra_json *m = astra_json_at(st, i);
		astra_buf_addf(b, "%s%.0f ", i ? ", " : ": ", astra_json_num(m, 0));
		esc(b, astra_json_key(m));
	}
	astra_buf_adds(b, ".");
	if (known(sum, "geomean_speedup_largest_faster"))
		astra_buf_addf(b, "  Geometric mean of the speedups at the largest shape: %.2fx over the kernels with a "
			       "faster variant, %.2fx over every kernel with a verdict.",
			       num(sum, "geomean_speedup_largest_faster"), num(sum, "geomean_speedup_largest"));
	astra_buf_adds(b, "</p></header>\n<main>\n");

	astra_buf_adds(b, "<section id=\"speedups\"><h2>Speedup at the largest shape</h2>\n");
	if (!astra_report_svg_speedups(b, ks)) {
		/* Say what the table will show: speedups over all shapes without a time at the largest. */
		size_t overall = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(str(astra_json_at(ks, i), "status") ? str(astra_json_at(ks, i), "status") : "", "faster") &&
			    known(astra_json_at(ks, i), "speedup"))
				overall++;
		if (overall)
			astra_buf_addf(b, "<p class=\"muted\">No entry records its times at the largest shape, so "
				       "there is nothing to chart; %zu kernel%s ha%s a speedup over all shapes "
				       "(the table below).</p>\n", overall, overall == 1 ? "" : "s",
				       overall == 1 ? "s" : "ve");
		else
			astra_buf_adds(b, "<p class=\"muted\">No kernel has a measured speedup yet.</p>\n");
	}
	astra_buf_adds(b, "</section>\n");

	astra_buf_adds(b, "<section id=\"kernels\"><h2>Kernels</h2>\n<table class=\"kernels\">\n<thead><tr>"
			  "<th scope=\"col\">kernel</th><th scope=\"col\">file:line</th><th scope=\"col\">arch</th>"
			  "<th scope=\"col\">status</th><th scope=\"col\" class=\"num\">speedup at the largest shape</th>"
			  "<th scope=\"col\" class=\"num\">speedup over all shapes</th>"
			  "<th scope=\"col\" class=\"num\">copy roofline</th><th scope=\"col\">rules or model</th>"
			  "<th scope=\"col\" class=\"num\">rounds</th><th scope=\"col\" class=\"num\">time</th>"
			  "<th scope=\"col\">date</th><th scope=\"col\">device</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		const struct astra_json *k = astra_json_at(ks, i);
		const char *id = str(k, "id");
		astra_buf_adds(b, "<tr class=\"kernel\"><td>");
		if (id_ok(id))
			astra_buf_addf(b, "<a href=\"kernels/%s.html\">", id);
		esc(b, str(k, "kernel"));
		astra_buf_adds(b, id_ok(id) ? "</a></td><td>" : "</td><td>");
		place(b, k);
		astra_buf_adds(b, "</td><td>");
		esc(b, str(k, "arch") ? str(k, "arch") : "");
		astra_buf_adds(b, "</td><td>");
		status_badge(b, str(k, "status"));
		astra_buf_adds(b, "</td><td class=\"num\">");
		speed(b, k, "speedup_largest");
		astra_buf_adds(b, "</td><td class=\"num\">");
		speed(b, k, "speedup");
		astra_buf_adds(b, "</td><td class=\"num\">");
		if (known(k, "copy_roofline"))
			astra_buf_addf(b, "%.0f%%", 100 * num(k, "copy_roofline"));
		else
			astra_buf_adds(b, "&ndash;");
		astra_buf_adds(b, "</td><td>");
		applied_text(b, k);
		astra_buf_adds(b, "</td><td class=\"num\">");
		if (known(k, "rounds"))
			astra_buf_addf(b, "%.0f", num(k, "rounds"));
		else
			astra_buf_adds(b, "&ndash;");
		astra_buf_adds(b, "</td><td class=\"num\">");
		seconds(b, num(k, "seconds"));
		astra_buf_adds(b, "</td><td class=\"nowrap\">");
		short_date(b, str(k, "date"));
		astra_buf_adds(b, "</td><td>");
		esc(b, str(k, "device") ? str(k, "device") : "");
		astra_buf_adds(b, "</td></tr>\n");
	}
	astra_buf_adds(b, "</tbody></table>\n");
	if (!n)
		astra_buf_adds(b, "<p class=\"muted\">The cache holds no entry.  <code>astra-cc --warmup</code> on a "
				  "machine with a GPU fills it.</p>\n");
	astra_buf_adds(b, "</section>\n</main>\n");
	foot(b, doc);
}

/* ------------------------------------------------------------ a kernel's page */

static void diff_side(struct astra_buf *b, const struct astra_diff *d, size_t line, int left, enum astra_diff_kind kind)
{
	const char *cls = kind == ASTRA_DIFF_SAME ? "" : left ? " del" : " ins";
	if (!line) {
		astra_buf_adds(b, "<td class=\"ln none\"></td><td class=\"mk none\"></td><td class=\"none\"></td>");
		return;
	}
	astra_buf_addf(b, "<td class=\"ln\">%zu</td><td class=\"mk%s\">%s</td><td class=\"code%s\">", line, cls,
		       kind == ASTRA_DIFF_SAME ? "" : left ? "-" : "+", cls);
	esc(b, left ? d->a[line - 1] : d->b[line - 1]);
	astra_buf_adds(b, "</td>");
}

static void source_section(struct astra_buf *b, const struct astra_json *k)
{
	const char *a = str(k, "original_text"), *v = str(k, "variant_text");
	struct astra_diff d;
	size_t i;

	astra_buf_adds(b, "<section id=\"source\"><h2>The original and the variant</h2>\n");
	if (!v) {
		astra_buf_adds(b, "<p class=\"muted\">No variant: the build compiles the original.</p>\n");
		if (a) {
			astra_buf_adds(b, "<h3>The original</h3><pre><code>");
			esc(b, a);
			astra_buf_adds(b, "</code></pre>\n");
		}
		astra_buf_adds(b, "</section>\n");
		return;
	}
	if (!a) {
		astra_buf_adds(b, "<p class=\"muted\">This entry does not record the original's text; "
				  "the variant is shown alone (with the source file, <code>astra-cc --report DIR FILE.cu</code> "
				  "shows the diff).</p>\n<h3>The variant</h3><pre><code>");
		esc(b, v);
		astra_buf_adds(b, "</code></pre>\n</section>\n");
		return;
	}
	astra_diff_lines(a, v, &d);
	astra_buf_addf(b, "<p class=\"muted\">%zu line%s of the original removed or changed, %zu line%s of the variant "
		       "added or changed (marked <code>-</code> and <code>+</code>).</p>\n",
		       d.removed, d.removed == 1 ? "" : "s", d.added, d.added == 1 ? "" : "s");
	astra_buf_adds(b, "<table class=\"diff\"><colgroup><col class=\"ln\"><col class=\"mk\"><col>"
			  "<col class=\"ln\"><col class=\"mk\"><col></colgroup>\n<thead><tr><th colspan=\"3\" "
			  "scope=\"col\">original</th><th colspan=\"3\" scope=\"col\">variant</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < d.nr_rows; i++) {
		const struct astra_diff_row *r = &d.rows[i];
		astra_buf_addf(b, "<tr class=\"%s\">", r->kind == ASTRA_DIFF_SAME ? "same" : r->kind == ASTRA_DIFF_CHANGED
			       ? "changed" : r->kind == ASTRA_DIFF_REMOVED ? "removed" : "added");
		diff_side(b, &d, r->left, 1, r->kind);
		diff_side(b, &d, r->right, 0, r->kind);
		astra_buf_adds(b, "</tr>\n");
	}
	astra_buf_adds(b, "</tbody></table>\n</section>\n");
	astra_diff_release(&d);
}

/* One exchange of an LLM transcript: what was asked and what came back. */
static void transcript_exchange(struct astra_buf *b, const struct astra_json *x, size_t i)
{
	const struct astra_json *req = member(x, "request"), *msgs = member(req, "messages");
	const struct astra_json *resp = member(x, "response");
	const struct astra_json *ch = astra_json_at(member(resp, "choices"), 0);
	const char *answer = str(member(ch, "message"), "content");
	size_t m;

	astra_buf_addf(b, "<details%s><summary>%zu. ", i ? "" : " open", i + 1);
	esc(b, str(x, "purpose") ? str(x, "purpose") : "exchange");
	if (known(x, "status"))
		astra_buf_addf(b, " &middot; HTTP %.0f", num(x, "status"));
	if (str(x, "outcome")) {
		astra_buf_adds(b, " &middot; ");
		esc(b, str(x, "outcome"));
	}
	if (known(x, "seconds"))
		astra_buf_addf(b, " &middot; %.1f s", num(x, "seconds"));
	if (known(x, "tokens_in") || known(x, "tokens_out"))
		astra_buf_addf(b, " &middot; %.0f tokens in, %.0f out", num(x, "tokens_in"), num(x, "tokens_out"));
	astra_buf_adds(b, "</summary>\n");
	if (!astra_json_is_object(x)) {
		char *t = astra_json_print(x, 1);
		astra_buf_adds(b, "<pre>");
		esc(b, t);
		astra_buf_adds(b, "</pre>");
		free(t);
	}
	for (m = 0; m < astra_json_len(msgs); m++) {
		const struct astra_json *msg = astra_json_at(msgs, m);
		astra_buf_adds(b, "<div class=\"msg\"><span class=\"role\">");
		esc(b, str(msg, "role") ? str(msg, "role") : "?");
		astra_buf_adds(b, "</span><pre>");
		esc(b, str(msg, "content") ? str(msg, "content") : "");
		astra_buf_adds(b, "</pre></div>\n");
	}
	if (answer) {
		astra_buf_adds(b, "<div class=\"msg\"><span class=\"role\">answer</span><pre>");
		esc(b, answer);
		astra_buf_adds(b, "</pre></div>\n");
	} else if (str(x, "response_text")) {
		astra_buf_adds(b, "<div class=\"msg\"><span class=\"role\">answer (not JSON)</span><pre>");
		esc(b, str(x, "response_text"));
		astra_buf_adds(b, "</pre></div>\n");
	}
	astra_buf_adds(b, "</details>\n");
}

static void applied_section(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *steps = member(k, "steps"), *t = member(k, "transcript");
	size_t i;
	astra_buf_adds(b, "<section id=\"applied\"><h2>What was applied</h2>\n<dl class=\"facts\"><dt>optimizer</dt><dd>");
	esc(b, str(k, "optimizer") ? str(k, "optimizer") : "?");
	if (str(k, "model")) {
		astra_buf_adds(b, ", model ");
		esc(b, str(k, "model"));
	}
	astra_buf_adds(b, "</dd><dt>variant made by</dt><dd>");
	applied_text(b, k);
	astra_buf_adds(b, "</dd></dl>\n");
	if (astra_json_len(steps)) {
		astra_buf_adds(b, "<h3>Rules, in the order they were applied</h3>\n<ol class=\"steps\">\n");
		for (i = 0; i < astra_json_len(steps); i++) {
			astra_buf_adds(b, "<li><code>");
			esc(b, astra_json_str(astra_json_at(steps, i)));
			astra_buf_adds(b, "</code></li>\n");
		}
		astra_buf_adds(b, "</ol>\n");
	}
	if (t) {
		astra_buf_adds(b, "<h3>The LLM transcript</h3>\n<p class=\"muted small\">Stored with the entry, secrets "
				  "redacted when it was written and again for this page.</p>\n");
		if (astra_json_is_array(t))
			for (i = 0; i < astra_json_len(t); i++)
				transcript_exchange(b, astra_json_at(t, i), i);
		else {
			astra_buf_adds(b, "<pre>");
			esc(b, astra_json_str(t) ? astra_json_str(t) : "");
			astra_buf_adds(b, "</pre>\n");
		}
	}
	astra_buf_adds(b, "</section>\n");
}

static void timing_cells(struct astra_buf *b, const struct astra_json *t)
{
	astra_buf_adds(b, "<td class=\"num\">");
	us(b, num(t, "median_us"));
	astra_buf_adds(b, "</td><td class=\"num\">");
	if (t) {
		us(b, num(t, "q25_us"));
		astra_buf_adds(b, " &ndash; ");
		us(b, num(t, "q75_us"));
	} else {
		astra_buf_adds(b, "&ndash;");
	}
	astra_buf_adds(b, "</td>");
}

static void times_section(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *shapes = member(k, "shapes");
	size_t i;
	astra_buf_adds(b, "<section id=\"times\"><h2>Time per shape</h2>\n");
	if (!astra_report_svg_times(b, shapes))
		astra_buf_adds(b, "<p class=\"muted\">No timings recorded.</p>\n");
	if (!astra_json_len(shapes)) {
		astra_buf_adds(b, "</section>\n");
		return;
	}
	astra_buf_adds(b, "<table class=\"shapes\"><thead><tr><th scope=\"col\">shape</th>"
			  "<th scope=\"col\" class=\"num\">bytes per launch</th>"
			  "<th scope=\"col\" class=\"num\">original</th><th scope=\"col\" class=\"num\">interquartile range</th>"
			  "<th scope=\"col\" class=\"num\">variant</th><th scope=\"col\" class=\"num\">interquartile range</th>"
			  "<th scope=\"col\" class=\"num\">speedup</th><th scope=\"col\">against the noise</th></tr></thead>"
			  "\n<tbody>\n");
	for (i = 0; i < astra_json_len(shapes); i++) {
		const struct astra_json *s = astra_json_at(shapes, i), *vr = member(s, "variant");
		astra_buf_adds(b, "<tr><td>");
		esc(b, str(s, "shape"));
		astra_buf_adds(b, "</td><td class=\"num\">");
		bytes_text(b, num(s, "bytes"));
		astra_buf_adds(b, "</td>");
		timing_cells(b, member(s, "baseline"));
		timing_cells(b, vr);
		astra_buf_adds(b, "<td class=\"num\">");
		speed(b, vr, "speedup");
		astra_buf_adds(b, "</td><td>");
		esc(b, str(vr, "vs_baseline") ? str(vr, "vs_baseline") : "");
		astra_buf_adds(b, "</td></tr>\n");
	}
	astra_buf_adds(b, "</tbody></table>\n</section>\n");
}

static void roofline_section(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *shapes = member(k, "shapes");
	double ceil = num(k, "copy_gbps");
	size_t i;
	astra_buf_adds(b, "<section id=\"roofline\"><h2>Bandwidth against the copy ceiling</h2>\n");
	if (ceil > 0)
		astra_buf_addf(b, "<p class=\"muted\">The ceiling is this device's measured device-to-device copy "
			       "bandwidth, %.0f GB/s (bytes read plus written per second).  A memory-bound kernel "
			       "near it has little left to gain.</p>\n", ceil);
	if (!astra_report_svg_roofline(b, shapes, ceil)) {
		astra_buf_adds(b, "<p class=\"muted\">The bytes each shape moves are not recorded in this entry (it "
				  "predates the evidence record): run the warmup again to see the roofline.</p>\n");
		astra_buf_adds(b, "</section>\n");
		return;
	}
	astra_buf_adds(b, "<table class=\"bandwidth\"><thead><tr><th scope=\"col\">shape</th>"
			  "<th scope=\"col\" class=\"num\">original GB/s</th><th scope=\"col\" class=\"num\">of the ceiling</th>"
			  "<th scope=\"col\" class=\"num\">variant GB/s</th><th scope=\"col\" class=\"num\">of the ceiling</th>"
			  "</tr></thead>\n<tbody>\n");
	for (i = 0; i < astra_json_len(shapes); i++) {
		const struct astra_json *s = astra_json_at(shapes, i);
		int side;
		astra_buf_adds(b, "<tr><td>");
		esc(b, str(s, "shape"));
		astra_buf_adds(b, "</td>");
		for (side = 0; side < 2; side++) {
			const struct astra_json *t = member(s, side ? "variant" : "baseline");
			double g = num(t, "gbps");
			if (g > 0)
				astra_buf_addf(b, "<td class=\"num\">%.4g</td>", g);
			else
				astra_buf_adds(b, "<td class=\"num\">&ndash;</td>");
			if (g > 0 && ceil > 0)
				astra_buf_addf(b, "<td class=\"num\">%.0f%%</td>", 100 * g / ceil);
			else
				astra_buf_adds(b, "<td class=\"num\">&ndash;</td>");
		}
		astra_buf_adds(b, "</tr>\n");
	}
	astra_buf_adds(b, "</tbody></table>\n</section>\n");
}

static void yes_no(struct astra_buf *b, const char *label, const struct astra_json *o, const char *k, const char *yes,
		   const char *no)
{
	astra_buf_addf(b, "<dt>%s</dt><dd>%s</dd>", label, astra_json_get_bool(o, k, 0) ? yes : no);
}

static void evidence_section(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *v = member(k, "verification"), *shapes = member(k, "shapes");
	const struct astra_json *ch = member(v, "checks"), *san = member(v, "sanitizers");
	const struct astra_json *a;
	size_t i;

	astra_buf_adds(b, "<section id=\"evidence\"><h2>Verification evidence</h2>\n");
	if (!v) {
		astra_buf_adds(b, "<p class=\"muted\">This entry records no verification evidence.</p>\n</section>\n");
		return;
	}
	astra_buf_adds(b, "<dl class=\"facts\"><dt>run</dt><dd>");
	if (str(v, "run") && !strcmp(str(v, "run"), "confirmation"))
		astra_buf_adds(b, "the confirming run: the variant alone, judged again with fresh seeds in a fresh "
				  "process after the round that chose it");
	else if (str(v, "run"))
		astra_buf_adds(b, "the last run of the loop (no variant was kept)");
	else
		astra_buf_adds(b, "&ndash;");
	astra_buf_adds(b, "</dd><dt>seeds</dt><dd>");
	a = member(v, "seeds");
	for (i = 0; i < astra_json_len(a); i++)
		astra_buf_addf(b, "%s%.0f", i ? ", " : "", astra_json_num(astra_json_at(a, i), 0));
	if (!astra_json_len(a))
		astra_buf_adds(b, "&ndash;");
	astra_buf_adds(b, "</dd><dt>input distributions</dt><dd>");
	a = member(v, "distributions");
	for (i = 0; i < astra_json_len(a); i++) {
		astra_buf_adds(b, i ? ", " : "");
		esc(b, astra_json_str(astra_json_at(a, i)));
	}
	if (!astra_json_len(a))
		astra_buf_adds(b, "&ndash;");
	else
		astra_buf_adds(b, " (one trial each, fresh inputs; outputs poisoned or pre-filled with random data)");
	astra_buf_adds(b, "</dd>");
	if (ch) {
		yes_no(b, "misaligned pointers", ch, "misaligned", "tried", "not tried (the original requires aligned "
		       "buffers, or it did not run)");
		yes_no(b, "the original is deterministic", ch, "reference_deterministic", "yes: the variant must agree "
		       "with itself bit for bit", "no: the variant is held to the tolerance against itself");
		if (astra_json_get_bool(ch, "baseline_above_ceiling", 0))
			astra_buf_adds(b, "<dt>byte counts</dt><dd>overstated by the pragma (the original measures above "
					  "the copy ceiling): the roofline fractions are not meaningful</dd>");
	}
	if (str(san, "memcheck")) {
		astra_buf_adds(b, "<dt>compute-sanitizer memcheck</dt><dd>");
		esc(b, str(san, "memcheck"));
		astra_buf_adds(b, "</dd>");
	}
	if (str(san, "racecheck")) {
		astra_buf_adds(b, "<dt>compute-sanitizer racecheck</dt><dd>");
		esc(b, str(san, "racecheck"));
		astra_buf_adds(b, "</dd>");
	}
	astra_buf_adds(b, "</dl>\n");
	if (astra_json_len(shapes)) {
		astra_buf_adds(b, "<table class=\"checks\"><thead><tr><th scope=\"col\">shape</th>"
				  "<th scope=\"col\" class=\"num\">trials passed</th>"
				  "<th scope=\"col\" class=\"num\">largest error / tolerance</th>"
				  "<th scope=\"col\">tolerance per output</th></tr></thead>\n<tbody>\n");
		for (i = 0; i < astra_json_len(shapes); i++) {
			const struct astra_json *s = astra_json_at(shapes, i);
			astra_buf_adds(b, "<tr><td>");
			esc(b, str(s, "shape"));
			astra_buf_adds(b, "</td><td class=\"num\">");
			if (known(s, "trials"))
				astra_buf_addf(b, "%.0f", num(s, "trials"));
			else
				astra_buf_adds(b, "&ndash;");
			astra_buf_adds(b, "</td><td class=\"num\">");
			if (known(s, "max_error_over_tolerance"))
				astra_buf_addf(b, "%.3g", num(s, "max_error_over_tolerance"));
			else
				astra_buf_adds(b, "&ndash;");
			astra_buf_adds(b, "</td><td><code>");
			esc(b, str(s, "tolerances") ? str(s, "tolerances") : "");
			astra_buf_adds(b, "</code></td></tr>\n");
		}
		astra_buf_adds(b, "</tbody></table>\n");
	}
	a = member(v, "notes");
	if (astra_json_len(a)) {
		astra_buf_adds(b, "<h3>Notes</h3>\n<ul>\n");
		for (i = 0; i < astra_json_len(a); i++) {
			astra_buf_adds(b, "<li>");
			esc(b, astra_json_str(astra_json_at(a, i)));
			astra_buf_adds(b, "</li>\n");
		}
		astra_buf_adds(b, "</ul>\n");
	}
	astra_buf_adds(b, "</section>\n");
}

static void geometry_row(struct astra_buf *b, const char *who, const struct astra_json *g, const char *none)
{
	astra_buf_addf(b, "<tr><th scope=\"row\">%s</th>", who);
	if (!g) {
		astra_buf_addf(b, "<td colspan=\"3\">%s</td></tr>\n", none);
		return;
	}
	if (str(g, "pragma")) {
		astra_buf_adds(b, "<td colspan=\"3\"><code>");
		esc(b, str(g, "pragma"));
		astra_buf_adds(b, "</code></td></tr>\n");
		return;
	}
	astra_buf_adds(b, "<td><code>");
	esc(b, str(g, "grid") ? str(g, "grid") : "");
	astra_buf_adds(b, "</code></td><td><code>");
	esc(b, str(g, "block") ? str(g, "block") : "");
	astra_buf_adds(b, "</code></td><td><code>");
	esc(b, str(g, "shmem") ? str(g, "shmem") : "0");
	astra_buf_adds(b, "</code></td></tr>\n");
}

static void geometry_section(struct astra_buf *b, const struct astra_json *k)
{
	const struct astra_json *g = member(k, "geometry");
	astra_buf_adds(b, "<section id=\"geometry\"><h2>Launch geometry</h2>\n<table class=\"geometry\"><thead><tr>"
			  "<th scope=\"col\"></th><th scope=\"col\">grid</th><th scope=\"col\">block</th>"
			  "<th scope=\"col\">dynamic shared memory</th></tr></thead>\n<tbody>\n");
	geometry_row(b, "original (the pragma)", member(g, "original"), "not recorded");
	geometry_row(b, "variant", member(g, "variant"),
		     str(k, "variant_text") ? "the original's: the variant is launched as the original is" : "no variant");
	astra_buf_adds(b, "</tbody></table>\n");
	if (member(g, "variant"))
		astra_buf_adds(b, "<p class=\"muted small\">A variant with its own geometry is compiled under a private name "
				  "and every launch site in the file calls a generated launcher that computes it "
				  "(doc/substitution.md).</p>\n");
	astra_buf_adds(b, "</section>\n");
}

static void list_section(struct astra_buf *b, const char *id, const char *title, const struct astra_json *a,
			 const char *empty)
{
	size_t i;
	astra_buf_addf(b, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
	if (!astra_json_len(a)) {
		astra_buf_addf(b, "<p class=\"muted\">%s</p>\n</section>\n", empty);
		return;
	}
	astra_buf_adds(b, "<ol class=\"log\">\n");
	for (i = 0; i < astra_json_len(a); i++) {
		astra_buf_adds(b, "<li><code>");
		esc(b, astra_json_str(astra_json_at(a, i)));
		astra_buf_adds(b, "</code></li>\n");
	}
	astra_buf_adds(b, "</ol>\n</section>\n");
}

static void kernel_page(struct astra_buf *b, const struct astra_json *doc, const struct astra_json *k)
{
	const struct astra_json *in = member(k, "key_inputs");
	char *title = xasprintf("%s - astra-cc report", str(k, "kernel") ? str(k, "kernel") : "?");
	const char *status = str(k, "status");
	int entry = status && strcmp(status, "no-entry") && strcmp(status, "corrupt");
	size_t i;

	head(b, title);
	free(title);
	astra_buf_adds(b, "<header><p><a href=\"../index.html\">&larr; all kernels</a></p><h1>");
	esc(b, str(k, "kernel"));
	astra_buf_adds(b, " ");
	status_badge(b, str(k, "status"));
	astra_buf_adds(b, "</h1><p class=\"muted\">");
	place(b, k);
	if (str(k, "arch")) {
		astra_buf_adds(b, " &middot; ");
		esc(b, str(k, "arch"));
	}
	if (str(k, "key")) {
		astra_buf_adds(b, " &middot; key <code>");
		esc(b, str(k, "key"));
		astra_buf_adds(b, "</code>");
	}
	if (entry)
		astra_buf_adds(b, "</p>\n<nav class=\"toc\"><a href=\"#figures\">figures</a><a href=\"#source\">source</a>"
				  "<a href=\"#applied\">applied</a><a href=\"#times\">time per shape</a>"
				  "<a href=\"#roofline\">roofline</a><a href=\"#evidence\">evidence</a>"
				  "<a href=\"#geometry\">launch geometry</a><a href=\"#log\">log</a><a href=\"#inputs\">key</a>"
				  "</nav></header>\n<main>\n");
	else
		astra_buf_adds(b, "</p>\n<nav class=\"toc\"><a href=\"#figures\">figures</a><a href=\"#source\">source</a>"
				  "<a href=\"#geometry\">launch geometry</a></nav></header>\n<main>\n");

	astra_buf_adds(b, "<section id=\"figures\"><h2>Figures</h2>\n<dl class=\"facts\">");
	if (str(k, "reason")) {
		astra_buf_adds(b, "<dt>why</dt><dd>");
		esc(b, str(k, "reason"));
		astra_buf_adds(b, "</dd>");
	}
	astra_buf_adds(b, "<dt>speedup at the largest shape</dt><dd>");
	speed(b, k, "speedup_largest");
	if (str(k, "largest_shape")) {
		astra_buf_adds(b, " (");
		esc(b, str(k, "largest_shape"));
		astra_buf_adds(b, ": ");
		us(b, num(k, "baseline_us"));
		astra_buf_adds(b, " &rarr; ");
		us(b, num(k, "best_us"));
		astra_buf_adds(b, ")");
	}
	astra_buf_adds(b, "</dd><dt>speedup over all shapes</dt><dd>");
	speed(b, k, "speedup");
	astra_buf_adds(b, " (geometric mean)</dd><dt>copy roofline</dt><dd>");
	if (known(k, "copy_roofline"))
		astra_buf_addf(b, "%.0f%% of the measured copy bandwidth at the largest shape", 100 * num(k, "copy_roofline"));
	else
		astra_buf_adds(b, "&ndash;");
	astra_buf_adds(b, "</dd><dt>rounds</dt><dd>");
	if (known(k, "rounds"))
		astra_buf_addf(b, "%.0f (%.0f candidates tried, %.0f passed every check)", num(k, "rounds"), num(k, "tried"),
			       num(k, "accepted"));
	else
		astra_buf_adds(b, "&ndash;");
	astra_buf_adds(b, "</dd><dt>time</dt><dd>");
	seconds(b, num(k, "seconds"));
	astra_buf_adds(b, "</dd><dt>date</dt><dd>");
	esc(b, str(k, "date") ? str(k, "date") : "");
	astra_buf_adds(b, "</dd><dt>device</dt><dd>");
	esc(b, str(k, "device") ? str(k, "device") : "");
	if (str(k, "driver")) {
		astra_buf_adds(b, ", driver ");
		esc(b, str(k, "driver"));
	}
	astra_buf_adds(b, "</dd><dt>nvcc</dt><dd>");
	esc(b, str(k, "nvcc") ? str(k, "nvcc") : "");
	astra_buf_adds(b, "</dd></dl>\n</section>\n");

	source_section(b, k);
	if (!entry) {
		/* No entry, or one that cannot be read: nothing was measured or proved. */
		geometry_section(b, k);
		astra_buf_adds(b, "</main>\n");
		foot(b, doc);
		return;
	}
	applied_section(b, k);
	times_section(b, k);
	roofline_section(b, k);
	evidence_section(b, k);
	geometry_section(b, k);
	list_section(b, "log", "The loop's log", member(k, "log"), "Not recorded in this entry.");

	astra_buf_adds(b, "<section id=\"inputs\"><h2>What the key covers</h2>\n");
	if (astra_json_len(in)) {
		astra_buf_adds(b, "<table class=\"inputs\"><tbody>\n");
		for (i = 0; i < astra_json_len(in); i++) {
			const struct astra_json *m = astra_json_at(in, i);
			astra_buf_adds(b, "<tr><th scope=\"row\">");
			esc(b, astra_json_key(m));
			astra_buf_adds(b, "</th><td><code>");
			esc(b, astra_json_str(m));
			astra_buf_adds(b, "</code></td></tr>\n");
		}
		astra_buf_adds(b, "</tbody></table>\n");
	} else {
		astra_buf_adds(b, "<p class=\"muted\">Not recorded.</p>\n");
	}
	astra_buf_adds(b, "</section>\n</main>\n");
	foot(b, doc);
}

/* ------------------------------------------------------------ the site */

static int put(const char *path, const struct astra_buf *b)
{
	if (astra_fsio_write_atomic(path, b->buf, b->len) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove kernel pages of an earlier report that this one does not have. */
static void remove_stale(const char *kdir, const struct astra_json *ks)
{
	DIR *d = opendir(kdir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), i;
		char *id;
		int keep = 0;
		if (n < 6 || strcmp(de->d_name + n - 5, ".html"))
			continue;
		id = xstrndup(de->d_name, n - 5);
		if (!id_ok(id)) {
			free(id);
			continue;
		}
		for (i = 0; i < astra_json_len(ks) && !keep; i++) {
			const char *kid = astra_json_get_str(astra_json_at(ks, i), "id");
			keep = kid && !strcmp(kid, id);
		}
		if (!keep) {
			char *path = xasprintf("%s/%s", kdir, de->d_name);
			unlink(path);
			free(path);
		}
		free(id);
	}
	closedir(d);
}

int astra_report_html_write(const struct astra_json *doc, const char *dir)
{
	const struct astra_json *ks = member(doc, "kernels");
	struct astra_buf b = ASTRA_BUF_INIT;
	char *kdir = xasprintf("%s/kernels", dir), *path;
	int ret = 0;
	size_t i;

	if (astra_fsio_mkdirs(kdir) < 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", astra_progname, kdir, strerror(errno));
		free(kdir);
		return -1;
	}
	for (i = 0; i < astra_json_len(ks) && !ret; i++) {
		const struct astra_json *k = astra_json_at(ks, i);
		const char *id = astra_json_get_str(k, "id");
		if (!id_ok(id))
			continue;
		astra_buf_reset(&b);
		kernel_page(&b, doc, k);
		path = xasprintf("%s/%s.html", kdir, id);
		ret = put(path, &b);
		free(path);
	}
	if (!ret) {
		remove_stale(kdir, ks);
		astra_buf_reset(&b);
		index_page(&b, doc);
		path = xasprintf("%s/index.html", dir);
		ret = put(path, &b);
		free(path);
	}
	astra_buf_release(&b);
	free(kdir);
	return ret;
}
