/*
 * report-svg.h - the report's charts, drawn as inline SVG.
 *
 * astra-cc draws them itself (no JavaScript, no charting library) so that
 * a report opens from file:// on a machine without network and shows the
 * same thing in every browser and in a screenshot.  Each function reads
 * the report's own JSON (doc/report.md: a kernel's "shapes", the index's
 * "kernels"), appends one <svg> element to b and returns 1, or appends
 * nothing and returns 0 when there is nothing to draw.  Every text in a
 * chart is escaped (astra_buf_add_html_escaped): names come from the
 * cache, which is untrusted input.
 */
#ifndef ASTRA_REPORT_SVG_H
#define ASTRA_REPORT_SVG_H

#include "lib/buf.h"

struct astra_json;

/*
 * Time per shape, log scale: the original's and the variant's medians,
 * each with its interquartile range as the noise band.
 */
int astra_report_svg_times(struct astra_buf *b, const struct astra_json *shapes);

/*
 * Roofline style: achieved bandwidth (GB/s) against bytes moved per
 * launch, for the original and the variant at each shape, under the
 * measured copy ceiling (copy_gbps; 0: unknown, no ceiling drawn).
 */
int astra_report_svg_roofline(struct astra_buf *b, const struct astra_json *shapes, double copy_gbps);

/* The index's chart: each kernel's speedup at its largest shape (log scale). */
int astra_report_svg_speedups(struct astra_buf *b, const struct astra_json *kernels);

#endif
