/*
 * device.c - per-device ceilings in the cache directory (see device.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/json.h"
#include "lib/log.h"
#include "verify/device.h"
#include "cache/fsio.h"

void astra_device_ceilings_release(struct astra_device_ceilings *d)
{
	free(d->device);
	free(d->driver);
	memset(d, 0, sizeof(*d));
}

/* The object of (device, cc) on the local tier: "<digest of the name>-<cc>.device". */
static char *device_name(const char *device, int cc)
{
	struct astra_digest d;
	astra_hash128(device, strlen(device), &d);
	return astra_cache_object_name(d.hex, cc, ASTRA_OBJ_DEVICE);
}

static int plausible(double v)
{
	return isfinite(v) && v > 0 && v < 1e9;
}

int astra_cache_device_get(struct astra_cache *c, const char *device, int cc,
			   struct astra_device_ceilings *out)
{
	struct astra_storage *s = astra_cache_local(c);
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *j;
	char *name;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!device || !*device)
		return 0;
	name = device_name(device, cc);
	{
		/* Ceilings decide what counts as a measurement error: only trusted ones are used. */
		struct astra_storage_stat st;
		memset(&st, 0, sizeof(st));
		ret = s->ops->get(s, name, &b, &st);
		if (ret > 0 && !astra_cache_trusted(s, name, &st))
			ret = 0;
	}
	if (ret <= 0)
		goto out;
	ret = 0;
	j = astra_json_parse(b.buf, b.len);
	if (j && astra_json_get_num(j, "format", 0) == ASTRA_DEVICE_FORMAT &&
	    astra_json_get_str(j, "device") && !strcmp(astra_json_get_str(j, "device"), device) &&
	    astra_json_get_num(j, "cc", 0) == cc && plausible(astra_json_get_num(j, "copy_gbps", 0)) &&
	    plausible(astra_json_get_num(j, "fma_gflops", 0))) {
		out->device = xstrdup(device);
		out->cc = cc;
		if (astra_json_get_str(j, "driver"))
			out->driver = xstrdup(astra_json_get_str(j, "driver"));
		out->copy_gbps = astra_json_get_num(j, "copy_gbps", 0);
		out->fma_gflops = astra_json_get_num(j, "fma_gflops", 0);
		out->measured = (long long)astra_json_get_num(j, "measured", 0);
		ret = 1;
	} else {
		warning("ignoring unusable device ceilings %s in %s", name, s->url);
	}
	astra_json_free(j);
out:
	astra_buf_release(&b);
	free(name);
	return ret;
}

int astra_cache_device_put(struct astra_cache *c, struct astra_device_ceilings *d)
{
	struct astra_storage *s = astra_cache_local(c);
	struct astra_json *j;
	char *text, *name;
	int ret;

	if (!d->device || !*d->device || d->cc <= 0 || !plausible(d->copy_gbps) || !plausible(d->fma_gflops))
		return error("refusing to keep implausible device ceilings");
	if (!d->measured)
		d->measured = astra_time();
	j = astra_json_new_object();
	astra_json_set_num(j, "format", ASTRA_DEVICE_FORMAT);
	astra_json_set_str(j, "device", d->device);
	astra_json_set_num(j, "cc", d->cc);
	if (d->driver)
		astra_json_set_str(j, "driver", d->driver);
	astra_json_set_num(j, "copy_gbps", d->copy_gbps);
	astra_json_set_num(j, "fma_gflops", d->fma_gflops);
	astra_json_set_num(j, "measured", (double)d->measured);
	text = astra_json_print(j, 1);
	astra_json_free(j);
	name = device_name(d->device, d->cc);
	ret = s->ops->put(s, name, text, strlen(text));
	if (ret < 0) {
		warning("cannot keep the device ceilings in %s: %s", s->url, strerror(errno));
		astra_fsio_count(errno);
	}
	free(text);
	free(name);
	return ret;
}
