/*
 * profile.c - ceilings, roofline fractions and the "faster" rule (see profile.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/profile.h"
#include "astra-cc/buf.h"
#include "astra-cc/json.h"
#include "astra-cc/log.h"
#include "astra-cc/util.h"

int astra_profile_compare(const struct astra_timing *base, const struct astra_timing *cand, double *speedup)
{
	double s = cand->median > 0 ? base->median / cand->median : 0.0;
	if (speedup)
		*speedup = s;
	if (base->median <= 0 || cand->median <= 0)
		return 0;
	if (cand->median <= base->median * (1.0 - ASTRA_PROFILE_MIN_GAIN) && cand->q75 < base->q25)
		return 1;
	if (cand->median >= base->median * (1.0 + ASTRA_PROFILE_MIN_GAIN) && cand->q25 > base->q75)
		return -1;
	return 0;
}

int astra_profile_fill(struct astra_profile *prof, const struct astra_timing *t, double bytes, double flops,
		       const struct astra_ceilings *ceil)
{
	double sec = t->median * 1e-6;
	double bw = sec > 0 ? bytes / sec / 1e9 : 0.0;
	double fl = sec > 0 ? flops / sec / 1e9 : 0.0;
	prof->time_us = t->median;
	prof->spread = t->median > 0 ? (t->q75 - t->q25) / (2.0 * t->median) : 0.0;
	prof->bytes = bytes;
	prof->flops = flops;
	prof->bw_frac = ceil && ceil->copy_gbps > 0 ? bw / ceil->copy_gbps : 0.0;
	prof->flop_frac = ceil && ceil->fma_gflops > 0 ? fl / ceil->fma_gflops : 0.0;
	return prof->bw_frac > ASTRA_PROFILE_ROOFLINE_SLACK || prof->flop_frac > ASTRA_PROFILE_ROOFLINE_SLACK;
}

static char *ceilings_path(const char *dir, const char *uuid)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p;
	astra_buf_addf(&b, "%s/ceilings/", dir);
	/* The uuid comes from the device; keep the file name tame anyway. */
	for (p = uuid; *p; p++)
		astra_buf_addch(&b, (*p == '/' || *p == '.' || *p == ' ') ? '_' : *p);
	astra_buf_adds(&b, ".json");
	return astra_buf_detach(&b, NULL);
}

int astra_profile_load_ceilings(const char *dir, const char *uuid, struct astra_ceilings *c)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *j;
	char *path;
	int rc = -1;

	if (!dir || !uuid || !*uuid)
		return -1;
	path = ceilings_path(dir, uuid);
	if (astra_buf_read_file(&b, path, 1 << 16) == 0 && (j = astra_json_parse(b.buf, b.len)) != NULL) {
		c->copy_gbps = astra_json_get_num(j, "copy_gbps", 0);
		c->fma_gflops = astra_json_get_num(j, "fma_gflops", 0);
		if (c->copy_gbps > 0 && c->fma_gflops > 0 && astra_json_get_str(j, "uuid") &&
		    !strcmp(astra_json_get_str(j, "uuid"), uuid))
			rc = 0;
		astra_json_free(j);
	}
	astra_buf_release(&b);
	free(path);
	return rc;
}

int astra_profile_save_ceilings(const char *dir, const char *uuid, const char *device_name,
				const struct astra_ceilings *c)
{
	char *sub, *path, *tmp, *text;
	struct astra_json *j;
	FILE *f;
	int rc = 0;

	sub = xasprintf("%s/ceilings", dir);
	if ((mkdir(dir, 0777) < 0 && errno != EEXIST) || (mkdir(sub, 0777) < 0 && errno != EEXIST)) {
		rc = error("cannot create %s: %s", sub, strerror(errno));
		free(sub);
		return rc;
	}
	free(sub);
	path = ceilings_path(dir, uuid);
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	j = astra_json_new_object();
	astra_json_set_str(j, "device", device_name ? device_name : "");
	astra_json_set_str(j, "uuid", uuid);
	astra_json_set_num(j, "copy_gbps", c->copy_gbps);
	astra_json_set_num(j, "fma_gflops", c->fma_gflops);
	astra_json_set_num(j, "measured_at", (double)astra_time());
	text = astra_json_print(j, 1);
	astra_json_free(j);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0) {
		rc = error("cannot write %s: %s", tmp, strerror(errno));
		if (f)
			unlink(tmp);
	} else if (rename(tmp, path) < 0) {
		rc = error("cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
	free(text);
	free(tmp);
	free(path);
	return rc;
}
