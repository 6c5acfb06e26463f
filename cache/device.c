/*
 * device.c - per-device ceilings in the cache directory (see device.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "astra-cc/json.h"
#include "astra-cc/log.h"
#include "cache/device.h"
#include "cache/fsio.h"

void astra_device_ceilings_release(struct astra_device_ceilings *d)
{
	free(d->device);
	free(d->driver);
	memset(d, 0, sizeof(*d));
}

/* "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3": a safe file name. */
static char *device_path(struct astra_cache *c, const char *device, int cc)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p;
	astra_buf_addf(&b, "%s/devices/", astra_cache_dir(c));
	for (p = device; *p && p - device < 100; p++) {
		char ch = *p;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			 ch == '-' || ch == '.';
		astra_buf_addch(&b, ok ? ch : '_');
	}
	astra_buf_addf(&b, "-%d.json", cc);
	return astra_buf_detach(&b, NULL);
}

static int plausible(double v)
{
	return isfinite(v) && v > 0 && v < 1e9;
}

int astra_cache_device_get(struct astra_cache *c, const char *device, int cc,
			   struct astra_device_ceilings *out)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *j;
	char *path;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!device || !*device)
		return 0;
	path = device_path(c, device, cc);
	if (astra_buf_read_file(&b, path, 1 << 16) < 0) {
		ret = errno == ENOENT || errno == ENOTDIR ? 0 : -1;
		goto out;
	}
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
		warning("ignoring unusable device ceilings in %s", path);
	}
	astra_json_free(j);
out:
	astra_buf_release(&b);
	free(path);
	return ret;
}

int astra_cache_device_put(struct astra_cache *c, struct astra_device_ceilings *d)
{
	struct astra_json *j;
	char *text, *path;
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
	path = device_path(c, d->device, d->cc);
	ret = astra_fsio_write_atomic(path, text, strlen(text));
	if (ret < 0) {
		warning("cannot keep the device ceilings in %s: %s", path, strerror(errno));
		astra_fsio_count(errno);
	}
	free(text);
	free(path);
	return ret;
}
