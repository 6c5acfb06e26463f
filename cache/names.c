/*
 * names.c - object names (see names.h).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "cache/manifest.h"
#include "cache/names.h"
#include "lib/util.h"

static const char *const suffixes[] = {
	[ASTRA_OBJ_ENTRY] = "entry",
	[ASTRA_OBJ_TRANSCRIPT] = "transcript",
	[ASTRA_OBJ_QUEUE] = "queue",
	[ASTRA_OBJ_DEVICE] = "device",
	[ASTRA_OBJ_SIG] = "sig",
	[ASTRA_OBJ_CAPTURE] = "capture",
};

char *astra_cache_object_name(const char *key, int cc, enum astra_object_kind kind)
{
	return xasprintf("%s-%d.%s", key, cc, suffixes[kind] ? suffixes[kind] : "other");
}

char *astra_cache_entry_name(const char *key, int cc)
{
	return astra_cache_object_name(key, cc, ASTRA_OBJ_ENTRY);
}

char *astra_cache_transcript_name(const char *key, int cc)
{
	return astra_cache_object_name(key, cc, ASTRA_OBJ_TRANSCRIPT);
}

enum astra_object_kind astra_cache_parse_name(const char *name, char *key, int *cc)
{
	const char *p = name + 32;
	char *end;
	long v;
	size_t k;
	if (strlen(name) < 34 || *p != '-')
		return ASTRA_OBJ_OTHER;
	memcpy(key, name, 32);
	key[32] = '\0';
	if (!astra_key_ok(key) || p[1] < '1' || p[1] > '9')
		return ASTRA_OBJ_OTHER;
	v = strtol(p + 1, &end, 10);
	if (v <= 0 || v > 9999 || *end != '.')
		return ASTRA_OBJ_OTHER;
	*cc = (int)v;
	for (k = 1; k < ARRAY_SIZE(suffixes); k++)
		if (!strcmp(end + 1, suffixes[k]))
			return (enum astra_object_kind)k;
	/* A capture's records and data objects extend its name (cache/capture.h). */
	if (!strncmp(end + 1, "capture-", 8) && end[9])
		return ASTRA_OBJ_CAPTURE;
	return ASTRA_OBJ_OTHER;
}
