/*
 * pipeline.c - the annotated-compile path (see pipeline.h).
 *
 * This file only sequences the passes; each pass lives in its own file.
 */
#include "autoconfig.h"

#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/log.h"
#include "passes/includes.h"
#include "passes/pipeline.h"

int astra_pipeline_mentions_pragma(const char *path, char *const *include_dirs)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_includes inc;
	int found;
	if (astra_buf_read_file(&b, path, 0) < 0) {
		astra_buf_release(&b);
		return 0;
	}
	found = astra_text_mentions_pragma(b.buf, b.len);
	if (!found) {
		/* Kernels may live in project headers; follow the quoted includes. */
		memset(&inc, 0, sizeof(inc));
		found = astra_includes_scan(path, b.buf, b.len, include_dirs, ASTRA_INCLUDES_STOP_AT_PRAGMA,
					    &inc) > 0;
		astra_includes_release(&inc);
	}
	astra_buf_release(&b);
	return found;
}

int astra_pipeline_compile(struct astra_invocation *inv)
{
	astra_trace(ASTRA_TRACE_DRIVER, "%s: annotated, but substitution is not built yet",
		    inv->cl.inputs.v[0]);
	return -1;
}
