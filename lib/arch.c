/*
 * arch.c - architecture names (see arch.h).
 *
 * There used to be six hand-written `sm_` parsers, each with its own idea
 * of sm_90a and lto_90; this is the one left.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/util.h"

enum astra_arch_kind astra_arch_parse(const char *name, unsigned flags, struct astra_arch *out)
{
	static const struct {
		const char *prefix;
		enum astra_arch_kind kind;
	} prefixes[] = {
		{ "sm_", ASTRA_ARCH_SM }, { "compute_", ASTRA_ARCH_COMPUTE }, { "lto_", ASTRA_ARCH_LTO },
	};
	struct astra_arch a = { ASTRA_ARCH_NONE, 0, 0 };
	const char *p = name;
	char *end;
	long v;
	size_t i;

	if (out)
		*out = a;
	if (!name)
		return ASTRA_ARCH_NONE;
	if (!strcmp(name, "native") || !strcmp(name, "all") || !strcmp(name, "all-major")) {
		a.kind = ASTRA_ARCH_SPECIAL;
		goto done;
	}
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (astra_starts_with(name, prefixes[i].prefix)) {
			a.kind = prefixes[i].kind;
			p = name + strlen(prefixes[i].prefix);
		}
	if (a.kind == ASTRA_ARCH_NONE) {
		if (!(flags & ASTRA_ARCH_ALLOW_BARE))
			return ASTRA_ARCH_NONE;
		a.kind = ASTRA_ARCH_BARE;
	}
	if (!isdigit((unsigned char)*p))
		return ASTRA_ARCH_NONE;
	v = strtol(p, &end, 10);
	if (v < 10 || v > 9999)
		return ASTRA_ARCH_NONE;
	if (*end == 'a' || *end == 'f') {
		a.suffix = *end;
		end++;
	}
	if (*end)
		return ASTRA_ARCH_NONE;
	a.cc = (int)v;
done:
	if (out)
		*out = a;
	return a.kind;
}

int astra_arch_cc(const char *name)
{
	struct astra_arch a;
	switch (astra_arch_parse(name, 0, &a)) {
	case ASTRA_ARCH_SM:
	case ASTRA_ARCH_COMPUTE:
	case ASTRA_ARCH_LTO:
		return a.cc;
	default:
		return 0;
	}
}

/* Is this normalized device flag a target option (-arch, -code, -gencode)? */
static int is_target_flag(const char *flag)
{
	const struct astra_nvcc_opt *opt;
	char *name = xstrndup(flag, strcspn(flag, "="));
	opt = astra_nvccopt_find(name);
	free(name);
	return opt && (opt->flags & OPT_ARCH);
}

static void add_unique(struct astra_vec *out, const char *s)
{
	if (astra_vec_find(out, s) < 0)
		astra_vec_push(out, s);
}

/* Call fn on each word of an option value: "arch=compute_90,code=[sm_90,compute_90]". */
static int each_word(const char *value, int (*fn)(const char *word, void *data), void *data)
{
	char *copy = xstrdup(value), *tok, *save = NULL;
	int ret = 0;
	for (tok = strtok_r(copy, ",[]=", &save); tok && !ret; tok = strtok_r(NULL, ",[]=", &save))
		ret = fn(tok, data);
	free(copy);
	return ret;
}

static int add_sm(const char *word, void *data)
{
	if (astra_arch_parse(word, 0, NULL) == ASTRA_ARCH_SM)
		add_unique(data, word);
	return 0;
}

int astra_arch_targets(const struct astra_cmdline *cl, struct astra_vec *out)
{
	size_t i;
	const char *arch = NULL;
	int have_code = 0, any = 0;
	for (i = 0; i < cl->device_flags.nr; i++) {
		const char *f = cl->device_flags.v[i];
		const char *v = strchr(f, '=');
		if (!v || !is_target_flag(f))
			continue;
		v++;
		any = 1;
		if (astra_starts_with(f, "--gpu-architecture=")) {
			arch = v;
		} else if (astra_starts_with(f, "--gpu-code=")) {
			have_code = 1;
			each_word(v, add_sm, out);
		} else if (astra_starts_with(f, "--generate-code=")) {
			const char *code = strstr(v, "code=");
			have_code = 1;
			/* code= lists the targets; without it, arch=sm_XX is one. */
			each_word(code ? code + 5 : v, add_sm, out);
		}
	}
	if (arch && astra_arch_parse(arch, 0, NULL) == ASTRA_ARCH_SPECIAL)
		return -1;
	/* -arch=sm_XX alone means code=sm_XX,compute_XX; -arch=compute_XX alone is PTX only. */
	if (arch && !have_code)
		add_unique(out, arch);
	if (!any)
		add_unique(out, "default");
	return 0;
}

struct ccs {
	int *ccs;
	size_t max, *nr;
};

static int add_cc(const char *word, void *data)
{
	struct ccs *c = data;
	struct astra_arch a;
	size_t k;
	switch (astra_arch_parse(word, 0, &a)) {
	case ASTRA_ARCH_SPECIAL:
		return -1;
	case ASTRA_ARCH_SM:
	case ASTRA_ARCH_COMPUTE:
	case ASTRA_ARCH_LTO:
		for (k = 0; k < *c->nr; k++)
			if (c->ccs[k] == a.cc)
				return 0;
		if (*c->nr == c->max)
			return -1;
		c->ccs[(*c->nr)++] = a.cc;
		return 0;
	default:
		return 0;
	}
}

int astra_arch_device_ccs(const struct astra_cmdline *cl, int *ccs, size_t max, size_t *nr)
{
	struct ccs c = { ccs, max, nr };
	size_t i;
	*nr = 0;
	for (i = 0; i < cl->device_flags.nr; i++) {
		const char *f = cl->device_flags.v[i];
		const char *p = strchr(f, '=');
		/* Every sm_XX, compute_XX, lto_XX: arch= and code= alike. */
		if (p && is_target_flag(f) && each_word(p + 1, add_cc, &c) < 0)
			return -1;
	}
	return *nr ? 0 : -1;
}

int astra_arch_ccs(const struct astra_cmdline *cl, struct astra_vec *out)
{
	size_t i;
	int known = 1;
	for (i = 0; i < cl->archs.nr; i++) {
		struct astra_arch a;
		char num[16];
		if (astra_arch_parse(cl->archs.v[i], 0, &a) == ASTRA_ARCH_SPECIAL) {
			known = 0;
			continue;
		}
		if (!a.cc)
			continue;
		snprintf(num, sizeof(num), "%d", a.cc);
		add_unique(out, num);
	}
	return known ? 0 : -1;
}
