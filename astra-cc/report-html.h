/*
 * report-html.h - the report as a static site.
 *
 * From the report's JSON document (astra-cc/cmd-report.h, doc/report.md) it
 * writes DIR/index.html (every kernel, one row each, and a chart of the
 * speedups) and DIR/kernels/<key>-<cc>.html per kernel (the original and
 * the variant side by side, what was applied, the charts, the evidence,
 * the launch geometry, the loop's log, the key's inputs).  Pages are
 * self-contained: the style is inline, the charts are inline SVG
 * (astra-cc/report-svg.h), there is no script, and a Content-Security-Policy
 * forbids loading anything, so that a page works from file:// with no
 * network and a hostile string in the cache cannot run code even if
 * escaping were ever missed.  Links are relative.
 */
#ifndef ASTRA_REPORT_HTML_H
#define ASTRA_REPORT_HTML_H

struct astra_json;

/*
 * Write the site for doc into dir (created if needed; kernel pages of an
 * earlier report that are not in doc are removed).  Returns 0, or -1
 * after printing why on stderr.
 */
int astra_report_html_write(const struct astra_json *doc, const char *dir);

#endif
