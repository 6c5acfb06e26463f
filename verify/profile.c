/*
 * profile.c - roofline fractions and the "faster" rule (see profile.h).
 */
#include "autoconfig.h"

#include <math.h>

#include "verify/profile.h"

int astra_profile_compare(const struct astra_timing *base, const struct astra_timing *cand, double *speedup)
{
	double s = cand->median > 0 ? base->median / cand->median : 0.0;
	if (speedup)
		*speedup = s;
	if (base->median <= 0 || cand->median <= 0)
		return 0;
	if (fabs(base->median - cand->median) < ASTRA_PROFILE_MIN_ABS_US)
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

int astra_profile_prefer(double sp, double sp_large, double cur, double cur_large, double best_seen, double gain,
			 double tie)
{
	if (sp > best_seen)
		best_seen = sp;
	if (sp > cur * (1 + tie))
		return 1;
	if (sp * (1 + tie) >= best_seen && sp_large > cur_large * (1 + gain))
		return 1;
	return sp > cur * (1 + gain) && sp_large * (1 + gain) >= cur_large;
}

size_t astra_profile_largest(const double *bytes, size_t n)
{
	size_t i, best = 0;
	for (i = 1; bytes && i < n; i++)
		if (bytes[i] > bytes[best])
			best = i;
	return best;
}

size_t astra_profile_fit_round(double elapsed, double budget, double last_round, size_t last_n, size_t n)
{
	double per, room, fit;
	if (!last_n || last_round <= 0)
		return n;
	per = last_round / (double)last_n;
	room = budget - elapsed - 0.5 * last_round;
	if (room < per)
		return 0;
	fit = floor(room / per);
	return fit >= (double)n ? n : (size_t)fit;
}
