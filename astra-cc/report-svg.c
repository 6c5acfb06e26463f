/*
 * report-svg.c - the report's charts (see report-svg.h).
 *
 * Plain SVG 1.1 shapes and text, styled by classes that the page's own
 * style sheet colours (report-html.c), with a <title> on every mark so
 * that hovering shows the figure.  Coordinates are computed here; the
 * browser only paints.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "astra-cc/report-svg.h"
#include "lib/json.h"

#define W 720.0

static void esc(struct astra_buf *b, const char *s)
{
	astra_buf_add_html_escaped(b, s ? s : "");
}

static void fmt_us(char *out, size_t n, double us)
{
	if (us >= 1000)
		snprintf(out, n, "%.3g ms", us / 1000);
	else
		snprintf(out, n, "%.3g us", us);
}

static void fmt_bytes(char *out, size_t n, double v)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(out, n, "%.3g %s", v, unit[u]);
}

/* A positive finite member, or 0. */
static double pos(const struct astra_json *o, const char *k)
{
	double v = astra_json_get_num(o, k, 0);
	return isfinite(v) && v > 0 ? v : 0;
}

static void open_svg(struct astra_buf *b, double h, const char *cls, const char *title)
{
	astra_buf_addf(b, "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		       "width=\"%.0f\" height=\"%.0f\" role=\"img\"><title>", cls, W, h, W, h);
	esc(b, title);
	astra_buf_adds(b, "</title>\n");
}

/* Decades lo10..hi10 on a log axis, with 2 and 5 between when there are few. */
static void log_ticks(double lo10, double hi10, double *ticks, size_t *nt, size_t max)
{
	int d;
	*nt = 0;
	for (d = (int)lo10; d <= (int)hi10; d++) {
		static const double mult[] = { 1, 2, 5 };
		size_t k;
		for (k = 0; k < 3; k++) {
			double v = mult[k] * pow(10, d);
			if (k && hi10 - lo10 > 3)
				continue;
			if (log10(v) < lo10 - 1e-9 || log10(v) > hi10 + 1e-9 || *nt >= max)
				continue;
			ticks[(*nt)++] = v;
		}
	}
}

/* A shape's label in lines: "rows=4096 cols=4096" -> "rows=4096", "cols=4096". */
static void label_lines(struct astra_buf *b, double x, double y, const char *label)
{
	const char *p = label ? label : "";
	int line = 0;
	astra_buf_addf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, y);
	while (*p && line < 4) {
		size_t n = strcspn(p, " ,");
		char *part;
		if (!n) {
			p++;
			continue;
		}
		part = xstrndup(p, n > 24 ? 24 : n);
		astra_buf_addf(b, "<tspan x=\"%.1f\" dy=\"%s\">", x, line ? "1.2em" : "0");
		esc(b, part);
		astra_buf_adds(b, "</tspan>");
		free(part);
		p += n;
		line++;
	}
	astra_buf_adds(b, "</text>\n");
}

/* ------------------------------------------------------------ time per shape */

struct series {
	const char *member;   /* "baseline" or "variant" */
	const char *name;     /* "original", "variant" */
	const char *cls;
	double dx;
};

int astra_report_svg_times(struct astra_buf *b, const struct astra_json *shapes)
{
	static const struct series ser[] = {
		{ "baseline", "original", "orig", -9 },
		{ "variant", "variant", "var", 9 },
	};
	const double left = 70, right = 20, top = 34, bottom = 78, h = 330;
	double lo = 0, hi = 0, lo10, hi10, pw = W - left - right, ph = h - top - bottom, slot;
	double ticks[16];
	size_t n = astra_json_len(shapes), i, s, nt;
	int have[2] = { 0, 0 };

	for (i = 0; i < n; i++) {
		const struct astra_json *c = astra_json_at(shapes, i);
		for (s = 0; s < 2; s++) {
			const struct astra_json *t = astra_json_get(c, ser[s].member);
			double m = pos(t, "median_us"), q25 = pos(t, "q25_us"), q75 = pos(t, "q75_us");
			if (!m)
				continue;
			have[s] = 1;
			q25 = q25 ? q25 : m;
			q75 = q75 ? q75 : m;
			lo = !lo || q25 < lo ? q25 : lo;
			hi = q75 > hi ? q75 : hi;
		}
	}
	if (!have[0] && !have[1])
		return 0;
	lo10 = floor(log10(lo));
	hi10 = ceil(log10(hi));
	if (hi10 <= lo10)
		hi10 = lo10 + 1;
	slot = pw / (double)n;
#define Y(v) (top + ph * (1 - (log10(v) - lo10) / (hi10 - lo10)))

	open_svg(b, h, "times", "Kernel time per shape: the original and the variant, with the interquartile range");
	astra_buf_addf(b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", left, top, pw,
		       ph);
	log_ticks(lo10, hi10, ticks, &nt, ARRAY_SIZE(ticks));
	for (i = 0; i < nt; i++) {
		char t[32];
		double y = Y(ticks[i]);
		fmt_us(t, sizeof(t), ticks[i]);
		astra_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			       left, y, left + pw, y, left - 6, y + 4, t);
	}
	astra_buf_addf(b, "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		       "time per launch (log scale)</text>\n", top + ph / 2);
	for (i = 0; i < n; i++) {
		const struct astra_json *c = astra_json_at(shapes, i);
		const char *label = astra_json_get_str(c, "shape");
		double x = left + slot * ((double)i + 0.5);
		label_lines(b, x, top + ph + 16, label);
		for (s = 0; s < 2; s++) {
			const struct astra_json *t = astra_json_get(c, ser[s].member);
			double m = pos(t, "median_us"), q25 = pos(t, "q25_us"), q75 = pos(t, "q75_us");
			double xs = x + (have[0] && have[1] ? ser[s].dx : 0);
			char tm[32], t25[32], t75[32];
			if (!m)
				continue;
			q25 = q25 ? q25 : m;
			q75 = q75 ? q75 : m;
			fmt_us(tm, sizeof(tm), m);
			fmt_us(t25, sizeof(t25), q25);
			fmt_us(t75, sizeof(t75), q75);
			astra_buf_addf(b, "<g class=\"%s\"><title>%s at ", ser[s].cls, ser[s].name);
			esc(b, label);
			astra_buf_addf(b, ": median %s, interquartile range %s to %s</title>", tm, t25, t75);
			astra_buf_addf(b, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"%.1f\"/>", xs - 6,
				       Y(q75), Y(q25) - Y(q75) < 1 ? 1 : Y(q25) - Y(q75));
			if (s == 0)
				astra_buf_addf(b, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>", xs, Y(m));
			else
				astra_buf_addf(b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"/>",
					       xs - 4.5, Y(m) - 4.5);
			astra_buf_adds(b, "</g>\n");
		}
	}
#undef Y
	/* Legend. */
	astra_buf_addf(b, "<g class=\"legend\"><circle class=\"orig mark\" cx=\"%.1f\" cy=\"16\" r=\"4.5\"/>"
		       "<text x=\"%.1f\" y=\"20\">original</text>", left + 6, left + 16);
	if (have[1])
		astra_buf_addf(b, "<rect class=\"var mark\" x=\"%.1f\" y=\"11.5\" width=\"9\" height=\"9\"/>"
			       "<text x=\"%.1f\" y=\"20\">variant</text>", left + 86, left + 100);
	astra_buf_addf(b, "<rect class=\"orig band\" x=\"%.1f\" y=\"9\" width=\"12\" height=\"14\"/>"
		       "<text x=\"%.1f\" y=\"20\">noise band: interquartile range of the repeats</text></g>\n",
		       left + 170, left + 188);
	astra_buf_adds(b, "</svg>\n");
	return 1;
}

/* ------------------------------------------------------------ roofline */

/* A nice round number at or above v (1, 2, 2.5, 5 times a power of ten). */
static double nice_ceil(double v)
{
	double p = pow(10, floor(log10(v))), m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

int astra_report_svg_roofline(struct astra_buf *b, const struct astra_json *shapes, double copy_gbps)
{
	const double left = 70, right = 24, top = 34, bottom = 50, h = 320;
	double pw = W - left - right, ph = h - top - bottom;
	double bmin = 0, bmax = 0, gmax = 0, lo10, hi10, ymax, step, y;
	double ticks[16];
	size_t n = astra_json_len(shapes), i, s, nt, points = 0;
	static const char *const member[] = { "baseline", "variant" };

	if (!(isfinite(copy_gbps) && copy_gbps > 0))
		copy_gbps = 0;
	for (i = 0; i < n; i++) {
		const struct astra_json *c = astra_json_at(shapes, i);
		double bytes = pos(c, "bytes");
		if (!bytes)
			continue;
		for (s = 0; s < 2; s++) {
			double g = pos(astra_json_get(c, member[s]), "gbps");
			if (!g)
				continue;
			points++;
			gmax = g > gmax ? g : gmax;
			bmin = !bmin || bytes < bmin ? bytes : bmin;
			bmax = bytes > bmax ? bytes : bmax;
		}
	}
	if (!points)
		return 0;
	lo10 = floor(log10(bmin));
	hi10 = ceil(log10(bmax));
	if (hi10 <= lo10)
		hi10 = lo10 + 1;
	ymax = nice_ceil((copy_gbps * 1.15 > gmax ? copy_gbps * 1.15 : gmax) * 1.05);
	step = nice_ceil(ymax / 6);
#define X(v) (left + pw * (log10(v) - lo10) / (hi10 - lo10))
#define Y(v) (top + ph * (1 - (v) / ymax))

	open_svg(b, h, "roofline", "Achieved bandwidth per shape against the measured copy ceiling");
	astra_buf_addf(b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", left, top, pw,
		       ph);
	for (y = 0; y <= ymax + 1e-9; y += step)
		astra_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
			       left, Y(y), left + pw, Y(y), left - 6, Y(y) + 4, y);
	log_ticks(lo10, hi10, ticks, &nt, ARRAY_SIZE(ticks));
	for (i = 0; i < nt; i++) {
		char t[32];
		fmt_bytes(t, sizeof(t), ticks[i]);
		astra_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			       X(ticks[i]), top, X(ticks[i]), top + ph, X(ticks[i]), top + ph + 16, t);
	}
	astra_buf_addf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">bytes moved per launch "
		       "(log scale)</text>\n", left + pw / 2, h - 8);
	astra_buf_addf(b, "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		       "achieved GB/s</text>\n", top + ph / 2);
	if (copy_gbps) {
		astra_buf_addf(b, "<g class=\"ceiling\"><title>measured device-to-device copy: %.0f GB/s</title>"
			       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">copy ceiling %.0f GB/s</text></g>\n",
			       copy_gbps, left, Y(copy_gbps), left + pw, Y(copy_gbps), left + pw - 4, Y(copy_gbps) - 5,
			       copy_gbps);
	}
	for (i = 0; i < n; i++) {
		const struct astra_json *c = astra_json_at(shapes, i);
		const char *label = astra_json_get_str(c, "shape");
		double bytes = pos(c, "bytes"), g0 = pos(astra_json_get(c, "baseline"), "gbps");
		double g1 = pos(astra_json_get(c, "variant"), "gbps");
		char tb[32];
		if (!bytes)
			continue;
		fmt_bytes(tb, sizeof(tb), bytes);
		if (g0 && g1)
			astra_buf_addf(b, "<line class=\"step\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				       X(bytes), Y(g0), X(bytes), Y(g1));
		for (s = 0; s < 2; s++) {
			double g = s ? g1 : g0;
			if (!g)
				continue;
			astra_buf_addf(b, "<g class=\"%s\"><title>%s at ", s ? "var" : "orig", s ? "variant" : "original");
			esc(b, label);
			astra_buf_addf(b, " (%s per launch): %.4g GB/s", tb, g);
			if (copy_gbps)
				astra_buf_addf(b, ", %.0f%% of the copy ceiling", 100 * g / copy_gbps);
			astra_buf_adds(b, "</title>");
			if (s == 0)
				astra_buf_addf(b, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>", X(bytes), Y(g));
			else
				astra_buf_addf(b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"/>",
					       X(bytes) - 4.5, Y(g) - 4.5);
			astra_buf_adds(b, "</g>\n");
		}
	}
#undef X
#undef Y
	astra_buf_addf(b, "<g class=\"legend\"><circle class=\"orig mark\" cx=\"%.1f\" cy=\"16\" r=\"4.5\"/>"
		       "<text x=\"%.1f\" y=\"20\">original</text><rect class=\"var mark\" x=\"%.1f\" y=\"11.5\" "
		       "width=\"9\" height=\"9\"/><text x=\"%.1f\" y=\"20\">variant</text></g>\n",
		       left + 6, left + 16, left + 86, left + 100);
	astra_buf_adds(b, "</svg>\n");
	return 1;
}

/* ------------------------------------------------------------ the index's chart */

static int str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int astra_report_svg_speedups(struct astra_buf *b, const struct astra_json *kernels)
{
	const double left = 230, right = 70, top = 30, row = 22;
	size_t n = astra_json_len(kernels), i, j, shown = 0, nt;
	double smin = 1, smax = 1, lo10, hi10, pw = W - left - right, h, ticks[16];

	for (i = 0; i < n; i++) {
		double sp = pos(astra_json_at(kernels, i), "speedup_largest");
		if (!sp)
			continue;
		shown++;
		smin = sp < smin ? sp : smin;
		smax = sp > smax ? sp : smax;
	}
	if (!shown)
		return 0;
	lo10 = floor(log10(smin) * 2) / 2;
	hi10 = ceil(log10(smax) * 2) / 2;
	if (hi10 - lo10 < 0.5)
		hi10 = lo10 + 0.5;
	h = top + row * (double)shown + 30;
#define X(v) (left + pw * (log10(v) - lo10) / (hi10 - lo10))
	open_svg(b, h, "speedups", "Speedup of each kernel at its largest shape");
	log_ticks(floor(lo10), ceil(hi10), ticks, &nt, ARRAY_SIZE(ticks));
	for (i = 0; i < nt; i++) {
		if (log10(ticks[i]) < lo10 - 1e-9 || log10(ticks[i]) > hi10 + 1e-9)
			continue;
		astra_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%gx</text>\n",
			       X(ticks[i]), top - 4, X(ticks[i]), h - 26, X(ticks[i]), h - 10, ticks[i]);
	}
	astra_buf_addf(b, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", X(1.0), top - 8,
		       X(1.0), h - 26);
	for (i = 0, shown = 0; i < n; i++) {
		const struct astra_json *k = astra_json_at(kernels, i);
		double sp = pos(k, "speedup_largest"), y = top + row * (double)shown, x0, x1;
		const char *name = astra_json_get_str(k, "kernel");
		char *cut;
		if (!sp)
			continue;
		shown++;
		x0 = X(1.0) < X(sp) ? X(1.0) : X(sp);
		x1 = X(1.0) < X(sp) ? X(sp) : X(1.0);
		/* The same kernel for several architectures: say which bar is which. */
		for (j = 0; j < n && !(j != i && str_eq(astra_json_get_str(astra_json_at(kernels, j), "kernel"), name)); j++)
			;
		cut = j < n ? xasprintf("%.24s %s", name ? name : "?", astra_json_get_str(k, "arch") ? astra_json_get_str(k, "arch") : "")
			: xasprintf("%.32s", name ? name : "?");
		astra_buf_addf(b, "<g class=\"%s\"><title>", sp >= 1 ? "var" : "slow");
		esc(b, name);
		astra_buf_addf(b, ": %.2fx at the largest shape</title>", sp);
		astra_buf_addf(b, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 8, y + 14);
		esc(b, cut);
		astra_buf_addf(b, "</text><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			       "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%.2fx</text></g>\n",
			       x0, y + 3, x1 - x0 < 1 ? 1 : x1 - x0, row - 6, x1 + 6, y + 14, sp);
		free(cut);
	}
#undef X
	astra_buf_adds(b, "</svg>\n");
	return 1;
}
