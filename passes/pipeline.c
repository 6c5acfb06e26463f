/*
 * pipeline.c - the annotated-compile path (see pipeline.h).
 *
 * This file only sequences the passes; each pass lives in its own file.
 */
#include "autoconfig.h"

#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/log.h"
#include "passes/pipeline.h"

/* "#pragma" then blanks then "astra": the only test made on every compile. */
static int text_mentions_pragma(const char *s, size_t len)
{
	const char *end = s + len, *p = s;
	while ((p = memmem(p, (size_t)(end - p), "pragma", 6)) != NULL) {
		const char *q = p + 6;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q >= 5 && !memcmp(q, "astra", 5))
			return 1;
		p += 6;
	}
	return 0;
}

int astra_pipeline_mentions_pragma(const char *path, char *const *include_dirs)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	int found;
	(void)include_dirs;
	if (astra_buf_read_file(&b, path, 0) < 0) {
		astra_buf_release(&b);
		return 0;
	}
	found = text_mentions_pragma(b.buf, b.len);
	astra_buf_release(&b);
	return found;
}

int astra_pipeline_compile(struct astra_invocation *inv)
{
	astra_trace(ASTRA_TRACE_DRIVER, "%s: annotated, but substitution is not built yet",
		    inv->cl.inputs.v[0]);
	return -1;
}
