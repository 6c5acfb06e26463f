/*
 * put-variant.c - store a `faster` cache entry whose variant is a real
 * kernel, as the optimization loop would after verifying it.  The
 * substitution cases (testsuite/cases/subst/) and bench/subst.sh use it to
 * make a real cache hit without a GPU.
 *
 * Usage: put-variant DIR KEY CC KERNEL VARIANT-FILE
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "cache/manifest.h"
#include "cache/store.h"

int main(int argc, char **argv)
{
	struct astra_buf text = ASTRA_BUF_INIT;
	struct astra_cache *c;
	struct astra_entry e;
	int ret;

	if (argc != 6) {
		fprintf(stderr, "usage: put-variant DIR KEY CC KERNEL VARIANT-FILE\n");
		return 2;
	}
	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	if (astra_buf_read_file(&text, argv[5], 0) < 0) {
		fprintf(stderr, "put-variant: %s: %s\n", argv[5], strerror(errno));
		return 1;
	}
	astra_entry_init(&e);
	e.key = xstrdup(argv[2]);
	e.cc = atoi(argv[3]);
	e.verdict = ASTRA_VERDICT_FASTER;
	e.kernel = xstrdup(argv[4]);
	astra_entry_set_variant(&e, text.buf, text.len);
	e.origin = xasprintf("test: %s", astra_basename(argv[5]));
	e.speedup = 1.5;
	e.device = xstrdup("none (stored by put-variant)");
	c = astra_cache_open(argv[1]);
	ret = astra_cache_store(c, &e, NULL, 0);
	astra_cache_close(c);
	astra_entry_release(&e);
	astra_buf_release(&text);
	if (ret < 0)
		fprintf(stderr, "put-variant: the store failed (see the log)\n");
	return ret < 0 ? 1 : 0;
}
