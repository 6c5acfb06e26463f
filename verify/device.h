/*
 * device.h - a GPU's measured ceilings, kept once per device.
 *
 * The profiling role reports achieved bandwidth and FLOP rate as fractions
 * of what the device can do, measured on the device itself (a large
 * device-to-device copy, a long FMA loop) rather than taken from a data
 * sheet.  Measuring costs seconds of GPU time, so the result is kept on the
 * cache's local tier: "<digest of the device name>-<cc>.device" (JSON).
 * A driver change does not invalidate it (ceilings are hardware); a file
 * that does not parse, has another format version or implausible numbers
 * is treated as absent, and the caller measures again.
 */
#ifndef ASTRA_DEVICE_H
#define ASTRA_DEVICE_H

#include "cache/store.h"

#define ASTRA_DEVICE_FORMAT 1

struct astra_device_ceilings {
	char *device;        /* "NVIDIA H100 80GB HBM3" */
	int cc;              /* 90 */
	char *driver;        /* informational */
	double copy_gbps;    /* device-to-device copy, GB/s (1e9 bytes/s, read + write) */
	double fma_gflops;   /* FP32 FMA rate, GFLOP/s (an FMA counts 2) */
	long long measured;  /* seconds since the epoch (set by put when 0) */
};

void astra_device_ceilings_release(struct astra_device_ceilings *d);

/*
 * The ceilings of (device, cc).  Returns 1 (out filled; release it), 0
 * (never measured, or the file is unusable) or -1 (unreadable cache).
 */
int astra_cache_device_get(struct astra_cache *c, const char *device, int cc,
			   struct astra_device_ceilings *out);

/* Keep d (replacing an older measurement).  0 or -1 (logged, counted). */
int astra_cache_device_put(struct astra_cache *c, struct astra_device_ceilings *d);

#endif
